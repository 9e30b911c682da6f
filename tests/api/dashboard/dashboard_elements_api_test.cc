// GET .../instances/{id}/elements: a selector's suggested elements from the dashboard's data,
// limited by the other selectors' current selections, with search and paging; checked against
// independent SQL on the warehouse.
#include "api/dashboard/dashboard_api.h"
#include "core/strings.h"

namespace tessera::testing {
namespace {

class DashboardElementsApi : public DashboardApi {
 protected:
  void SetUp() override {
    DashboardApi::SetUp();
    if (IsSkipped()) return;
    mid_ = CreateInstance(overview_);
  }

  http::Response ElementsResponse(const std::string& query) {
    return client().Get(Instances(overview_) + "/" + mid_ + "/elements?" + query,
                        AuthHeaders(token()));
  }

  // The answer as (id, name) pairs, checking the count header.
  std::vector<std::pair<std::string, std::string>> List(const std::string& query,
                                                        int64_t* total = nullptr) {
    auto response = ElementsResponse(query);
    EXPECT_EQ(response.status, 200) << query << ": " << response.body;
    std::vector<std::pair<std::string, std::string>> list;
    if (response.status != 200) return list;
    for (const auto& element : BodyOf(response)) list.emplace_back(element["id"], element["name"]);
    auto header = response.headers.Get("X-MSTR-Total-Count");
    EXPECT_TRUE(header.has_value());
    if (total && header) *total = std::stoll(std::string(*header));
    return list;
  }

  std::vector<std::pair<std::string, std::string>> Regions(const std::string& where) {
    std::vector<std::pair<std::string, std::string>> list;
    for (const auto& row : Query("SELECT DISTINCT region_id, region_name FROM flat WHERE " + where +
                                 " ORDER BY region_id")) {
      list.emplace_back(ElementId("Region", IntegerText(row[0])), row[1]);
    }
    return list;
  }

  std::string mid_;
};

TEST_P(DashboardElementsApi, ASelectorsElementsAreItsSourcesElementsInTheFilteredData) {
  int64_t total = -1;
  // The Recent Years chapter filter cascades into the Region list.
  EXPECT_EQ(List("filterKey=W10", &total), Regions("year_id >= 2023"));
  EXPECT_EQ(total, static_cast<int64_t>(Regions("year_id >= 2023").size()));

  // Its own selection does not restrict it; it restricts the others.
  const std::string region = AttributeId("Region");
  auto put = PutFilters(
      overview_, mid_,
      {{{"key", "W10"}, {"currentSelection", {{"elements", {{{"id", region + ":1"}}}}}}}});
  ASSERT_EQ(put.status, 204) << put.body;
  EXPECT_EQ(List("filterKey=W10"), Regions("year_id >= 2023"));
  std::vector<std::pair<std::string, std::string>> countries;
  for (const auto& row : Query("SELECT DISTINCT country_id, country_name FROM flat WHERE "
                               "region_id = 1 AND year_id >= 2023 ORDER BY country_id")) {
    countries.emplace_back(ElementId("Country", IntegerText(row[0])), row[1]);
  }
  EXPECT_EQ(List("targetObjectId=" + AttributeId("Country")), countries);
}

TEST_P(DashboardElementsApi, SearchIsCaseInsensitiveByContentOrPrefix) {
  const auto all = Regions("year_id >= 2023");
  ASSERT_FALSE(all.empty());
  const std::string probe = ToUpper(all.front().second.substr(0, 2));
  auto matching = [&](bool prefix) {
    std::vector<std::pair<std::string, std::string>> expected;
    for (const auto& element : all) {
      const std::string name = ToLower(element.second);
      const size_t at = name.find(ToLower(probe));
      if (prefix ? at == 0 : at != std::string::npos) expected.push_back(element);
    }
    return expected;
  };
  EXPECT_EQ(List("filterKey=W10&searchPattern=" + probe), matching(false));
  EXPECT_EQ(List("filterKey=W10&searchPattern=" + probe + "&searchType=begins_with"),
            matching(true));
  // Searching the ID form: the region whose ID is 1.
  EXPECT_EQ(List("filterKey=W10&searchPattern=1&searchType=begins_with&searchForms=" +
                 std::string(kIdFormId))
                .front()
                .first,
            ElementId("Region", "1"));
}

TEST_P(DashboardElementsApi, PagingAndTheTotalCount) {
  const auto all = Regions("year_id >= 2023");
  ASSERT_GE(all.size(), 3u);
  int64_t total = -1;
  auto page = List("filterKey=W10&offset=1&limit=2", &total);
  EXPECT_EQ(total, static_cast<int64_t>(all.size()));
  EXPECT_EQ(page, decltype(all)(all.begin() + 1, all.begin() + 3));
  EXPECT_TRUE(List("filterKey=W10&limit=0", &total).empty());
  EXPECT_EQ(total, static_cast<int64_t>(all.size()));
  EXPECT_EQ(List("filterKey=W10&offset=" + std::to_string(all.size())).size(), 0u);
}

TEST_P(DashboardElementsApi, BadQueriesAreRefused) {
  for (const std::string& query : std::vector<std::string>{
           "", "filterKey=W10&targetObjectId=" + AttributeId("Country"),
           "filterKey=W10&searchForms=zz", "targetObjectId=zz",
           "targetObjectId=" + AttributeId("Region") + "&targetObjectType=metric",
           "targetObjectId=" + AttributeId("Region") + "&targetObjectType=consolidation",
           "filterKey=W404", "filterKey=W12", "filterKey=W13", "filterKey=W10&limit=-2",
           "filterKey=W10&offset=-1", "filterKey=W10&searchType=fuzzy",
           "targetObjectId=" + AttributeId("Customer")}) {
    SCOPED_TRACE(query);
    ExpectError(ElementsResponse(query), 400, "ERR006");
  }
  ExpectError(client().Get(
                  Instances(overview_) + "/0123456789ABCDEF0123456789ABCDEF/elements?filterKey=W10",
                  AuthHeaders(token())),
              404, "ERR004");
}

INSTANTIATE_TEST_SUITE_P(Backends, DashboardElementsApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
