// Incremental fetching of one large result: a million-row pushed dataset read in pages of 1,000,
// 10,000 and 100,000 rows gives every row exactly once, in the order of the unpaged result, and
// that result is the rows that were pushed.
#include <map>
#include <string_view>
#include <vector>

#include "api/push/push_api.h"

namespace tessera::testing {
namespace {

constexpr int64_t kRows = 1'000'000;
constexpr const char* kLeanFields = "fields=-data.metricValues.extras,-data.metricValues.formatted";

double ValueOf(int64_t key) {
  return static_cast<double>(key % 1000) * 0.5 + static_cast<double>(key);
}

struct Row {
  std::string key;
  double value = 0;
  bool operator==(const Row&) const = default;
};

// What a page of one attribute (one form) and one metric holds, read straight from the text with
// a SAX reader: a DOM of a million rows would cost more than the server spends writing it.
struct PageRows {
  std::vector<std::string> elements;  // formValues[0] of each element of the page
  std::vector<int64_t> headers;       // per row, the index of its element
  std::vector<double> raw;            // per row, the metric's raw value
  std::map<std::string, int64_t> paging;
};

class PageReader : public nlohmann::json_sax<Json> {
 public:
  explicit PageReader(PageRows& page) : page_(page) {}

  bool null() override {
    return At({"data", "metricValues", "raw", "[]", "[]"}) ? Fail("a null value") : true;
  }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t value) override {
    return Number(static_cast<double>(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    return Number(static_cast<double>(value));
  }
  bool number_float(number_float_t value, const string_t&) override { return Number(value); }
  bool string(string_t& value) override {
    if (At({"definition", "grid", "rows", "[]", "elements", "[]", "formValues", "[]"})) {
      page_.elements.push_back(value);
    }
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    path_.emplace_back();
    return true;
  }
  bool key(string_t& value) override {
    path_.back() = value;
    return true;
  }
  bool end_object() override {
    path_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    path_.emplace_back("[]");
    return true;
  }
  bool end_array() override {
    path_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    return Fail(e.what());
  }

 private:
  bool Number(double value) {
    if (At({"data", "headers", "rows", "[]", "[]"})) {
      page_.headers.push_back(static_cast<int64_t>(value));
    } else if (At({"data", "metricValues", "raw", "[]", "[]"})) {
      page_.raw.push_back(value);
    } else if (path_.size() == 3 && path_[0] == "data" && path_[1] == "paging") {
      page_.paging[path_[2]] = static_cast<int64_t>(value);
    }
    return true;
  }
  bool At(std::initializer_list<std::string_view> pattern) const {
    if (path_.size() != pattern.size()) return false;
    size_t i = 0;
    for (std::string_view part : pattern) {
      if (path_[i++] != part) return false;
    }
    return true;
  }
  bool Fail(const std::string& what) {
    ADD_FAILURE() << "unexpected in a page: " << what;
    return false;
  }

  PageRows& page_;
  std::vector<std::string> path_;
};

class PagingApi : public PushApi {
 protected:
  // The rows of one page; `paging` gets the page's data.paging.
  std::vector<Row> RowsOf(const std::string& body,
                          std::map<std::string, int64_t>* paging = nullptr) {
    PageRows page;
    PageReader reader(page);
    EXPECT_TRUE(Json::sax_parse(body, &reader));
    EXPECT_EQ(page.headers.size(), page.raw.size());
    std::vector<Row> rows;
    for (size_t r = 0; r < std::min(page.headers.size(), page.raw.size()); ++r) {
      EXPECT_LT(static_cast<size_t>(page.headers[r]), page.elements.size());
      if (static_cast<size_t>(page.headers[r]) >= page.elements.size()) break;
      rows.push_back({page.elements[page.headers[r]], page.raw[r]});
    }
    if (paging) *paging = page.paging;
    return rows;
  }

  std::string Page(const std::string& path, int64_t offset, int64_t limit) {
    auto response = Get(path + "?offset=" + std::to_string(offset) +
                        "&limit=" + std::to_string(limit) + "&" + kLeanFields);
    EXPECT_EQ(response.status, 200) << response.body.substr(0, 300);
    return response.body;
  }
};

TEST_P(PagingApi, AMillionRowsReadInPagesOfEverySizeEqualTheUnpagedResult) {
  Json model = {
      {"name", "Million"},
      {"tables",
       {{{"name", "t"},
         {"columnHeaders",
          {{{"name", "key"}, {"dataType", "INTEGER"}},
           {{"name", "value"}, {"dataType", "DOUBLE"}}}}}}},
      {"attributes",
       {{{"name", "key"},
         {"attributeForms",
          {{{"category", "ID"},
            {"expressions", {{{"tableName", "t"}, {"columnName", "key"}}}}}}}}}},
      {"metrics",
       {{{"name", "value"}, {"expressions", {{{"tableName", "t"}, {"columnName", "value"}}}}}}}};
  const std::string id = CreateModel(model);
  // Pushed in a scrambled order, so the result's order is the engine's and not the upload's.
  Json rows = Json::array();
  for (int64_t i = 0; i < kRows; ++i) {
    const int64_t key = (i * 7919) % kRows;  // 7919 is prime to 10^6: a permutation
    rows.push_back({key, ValueOf(key)});
  }
  Upload(id, "t", "replace", {"key", "value"}, rows, 100'000);
  rows = Json();

  auto created =
      SendJson("POST", "/api/v2/cubes/" + id + "/instances?offset=0&limit=1000&" + kLeanFields,
               {{"requestedObjects",
                 {{"attributes", {{{"id", ObjectIdIn(id, "attributes", "key")}}}},
                  {"metrics", {{{"id", ObjectIdIn(id, "metrics", "value")}}}}}}});
  ASSERT_EQ(created.status, 200) << created.body.substr(0, 500);
  std::map<std::string, int64_t> first_paging;
  const std::vector<Row> first = RowsOf(created.body, &first_paging);
  ASSERT_EQ(first_paging["total"], kRows);
  const std::string path =
      "/api/v2/cubes/" + id + "/instances/" + BodyOf(created)["instanceId"].get<std::string>();

  const std::vector<Row> unpaged = RowsOf(Page(path, 0, -1));
  ASSERT_EQ(unpaged.size(), static_cast<size_t>(kRows));
  // Every pushed row, once, with its value.
  std::vector<bool> seen(kRows, false);
  for (const auto& row : unpaged) {
    const int64_t key = std::stoll(row.key);
    ASSERT_TRUE(key >= 0 && key < kRows && !seen[key]) << row.key;
    seen[key] = true;
    ASSERT_EQ(row.value, ValueOf(key)) << row.key;
  }

  for (int64_t limit : {1'000, 10'000, 100'000}) {
    std::vector<Row> paged;
    for (int64_t offset = 0; offset < kRows; offset += limit) {
      std::map<std::string, int64_t> paging;
      std::vector<Row> rows_of_page = RowsOf(Page(path, offset, limit), &paging);
      ASSERT_EQ(paging["current"], limit) << offset;
      ASSERT_EQ(paging["offset"], offset);
      paged.insert(paged.end(), rows_of_page.begin(), rows_of_page.end());
    }
    ASSERT_EQ(paged.size(), unpaged.size()) << "pages of " << limit;
    EXPECT_TRUE(paged == unpaged) << "pages of " << limit << " differ from the unpaged result";
  }
  // The first page of the creation response is the first page of the result.
  EXPECT_TRUE(first == std::vector<Row>(unpaged.begin(), unpaged.begin() + 1000));
}

// The storage backend plays no part in paging: one backend is enough.
INSTANTIATE_TEST_SUITE_P(Backends, PagingApi, ::testing::Values(StoreBackend::kSqlite),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
