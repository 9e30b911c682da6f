#include "model/bundle/qualification.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tessera::model::bundle {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::StartsWith;

constexpr char kRegion[] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
constexpr char kRevenue[] = "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";

// An attribute Region (forms ID, DESC) and a metric Revenue to qualify on.
class BundleQualification : public ::testing::Test {
 protected:
  BundleQualification() : index_("Shop"), fields_("filters.yaml", problems_) {
    index_.Declare(bundle::BundleKind::kAttribute, "Region", kRegion, "attributes.yaml:2");
    index_.SetForms(kRegion, {"ID", "DESC"});
    index_.Declare(bundle::BundleKind::kMetric, "Revenue", kRevenue, "metrics.yaml:2");
  }

  Json Read(const std::string& yaml) {
    return bundle::QualificationFromYaml(YAML::Load(yaml), fields_, index_);
  }

  Json Written(const Json& tree) {
    YAML::Emitter out;
    bundle::EmitQualification(out, tree, index_);
    return Read(out.c_str());
  }

  const std::vector<std::string>& problems() const { return problems_.list(); }

 private:
  bundle::BundleIndex index_;
  bundle::BundleProblems problems_;
  bundle::YamlFields fields_;
};

TEST_F(BundleQualification, ElementsBecomeIdsOfTheQualifiedAttribute) {
  const Json tree = Read(
      "operator: NotIn\n"
      "operands:\n"
      "  - {type: attribute, name: Region}\n"
      "  - {type: elements, values: [1, 7]}\n");

  EXPECT_THAT(problems(), IsEmpty());
  EXPECT_EQ(tree, Json::parse(R"({"operator": "NotIn", "operands": [
      {"type": "attribute", "id": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
      {"type": "elements", "elements": [{"id": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA:1"},
                                        {"id": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA:7"}]}]})"));
}

TEST_F(BundleQualification, FormOperandsKeepTheFormNameAndConstantsAreStrings) {
  const Json tree = Read(
      "operator: Between\n"
      "operands:\n"
      "  - {type: form, attribute: {id: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}, form: {name: ID}}\n"
      "  - {type: constant, dataType: Real, value: 10}\n"
      "  - {type: constant, dataType: Real, value: 20.5}\n");

  EXPECT_THAT(problems(), IsEmpty());
  EXPECT_EQ(tree, Json::parse(R"({"operator": "Between", "operands": [
      {"type": "form", "attribute": {"id": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
       "form": {"name": "ID"}},
      {"type": "constant", "dataType": "Real", "value": "10"},
      {"type": "constant", "dataType": "Real", "value": "20.5"}]})"));
}

TEST_F(BundleQualification, NestedConditionsAndMetricOperands) {
  const Json tree = Read(
      "operator: Or\n"
      "operands:\n"
      "  - operator: Greater\n"
      "    operands: [{type: metric, name: Revenue}, {type: constant, dataType: Real, value: 5}]\n"
      "  - operator: Not\n"
      "    operands:\n"
      "      - operator: IsNull\n"
      "        operands: [{type: metric, name: Revenue}]\n");

  EXPECT_THAT(problems(), IsEmpty());
  EXPECT_EQ(tree["operands"][0]["operands"][0],
            Json::parse(R"({"type": "metric", "id": "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"})"));
  EXPECT_EQ(tree["operands"][1]["operands"][0]["operator"], "IsNull");
}

TEST_F(BundleQualification, WritingAndReadingBackGivesTheSameTree) {
  const Json tree = Read(
      "operator: And\n"
      "operands:\n"
      "  - operator: In\n"
      "    operands: [{type: attribute, name: Region}, {type: elements, values: [1, \"2\"]}]\n"
      "  - operator: In\n"
      "    operands:\n"
      "      - {type: form, attribute: {name: Region}, form: {name: DESC}}\n"
      "      - {type: constants, dataType: Char, values: [North, \"true\"]}\n"
      "  - operator: Rank.Top\n"
      "    operands: [{type: metric, name: Revenue}, {type: constant, dataType: Int64, value: "
      "3}]\n");
  ASSERT_THAT(problems(), IsEmpty());

  EXPECT_EQ(Written(tree), tree);
  EXPECT_THAT(problems(), IsEmpty());
}

TEST_F(BundleQualification, UnknownFormOfTheAttribute) {
  Read(
      "operator: Like\n"
      "operands:\n"
      "  - {type: form, attribute: {name: Region}, form: {name: Desc}}\n"
      "  - {type: constant, dataType: Char, value: 'N%'}\n");

  EXPECT_THAT(problems(),
              ElementsAre("filters.yaml:3: 'Desc' is not a form of attribute 'Region'"));
}

TEST_F(BundleQualification, ElementsNeedAnAttributeFirst) {
  Read(
      "operator: In\n"
      "operands:\n"
      "  - {type: metric, name: Revenue}\n"
      "  - {type: elements, values: [1]}\n");

  EXPECT_THAT(problems(),
              ElementsAre("filters.yaml:4: elements need an attribute operand before them"));
}

TEST_F(BundleQualification, UnknownOperandTypeAndDataType) {
  Read(
      "operator: Equals\n"
      "operands:\n"
      "  - {type: atribute, name: Region}\n"
      "  - {type: constant, dataType: Text, value: x}\n");

  EXPECT_THAT(problems(),
              ElementsAre(StartsWith("filters.yaml:3: 'atribute' is not an operand type; "
                                     "expected one of attribute, form, metric"),
                          StartsWith("filters.yaml:4: 'Text' is not a constant data type")));
}

TEST_F(BundleQualification, LogicalOperatorsTakeConditions) {
  Read(
      "operator: And\n"
      "operands:\n"
      "  - {type: metric, name: Revenue}\n");

  EXPECT_THAT(problems(),
              ElementsAre("filters.yaml:1: operator And takes at least 2 operand(s), not 1",
                          "filters.yaml:3: expected a condition: {operator, operands}"));
}

}  // namespace
}  // namespace tessera::model::bundle
