// `qinfer submit`'s line preparation: a user's columns ride along in `meta`,
// or are refused by name; text lines become text jobs; and `results
// --export`'s file names.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "absl/strings/escaping.h"

#include "../../app/src/results.h"
#include "../../app/src/submit.h"

namespace qinfer::app {
namespace {

using nlohmann::json;

// The line as sent, parsed; its key; or what is wrong with it.
struct Prepared {
  std::optional<std::string> error;
  json sent;
  std::string key;
};

Prepared Prepare(const SubmitOptions& o, std::string line) {
  Prepared p;
  p.error = PrepareLine(o, line, p.key);
  if (!p.error) p.sent = json::parse(line);
  return p;
}

TEST(SubmitPrepareLine, AUsersColumnsRideAlongInMeta) {
  SubmitOptions o;
  o.text = true;
  Prepared p = Prepare(o, R"({"id":"a","text":"hello","title":"Greeting","url":"https://x/1","rank":3})");
  ASSERT_FALSE(p.error) << *p.error;
  EXPECT_EQ(p.sent, json::parse(R"({"id":"a","text":"hello",
                                    "meta":{"title":"Greeting","url":"https://x/1","rank":3}})"));
  EXPECT_EQ(p.key, "a");

  // Beside a meta of its own, and on a job line (not --text) too.
  o.text = false;
  p = Prepare(o, R"({"id":"b","input_ids":[1,2],"meta":{"n":1},"source":{"shard":2}})");
  ASSERT_FALSE(p.error) << *p.error;
  EXPECT_EQ(p.sent.at("meta"), json::parse(R"({"n":1,"source":{"shard":2}})"));
  EXPECT_FALSE(p.sent.contains("source"));

  // A `meta` of null is no meta.
  p = Prepare(o, R"({"id":"c","input_ids":[1],"meta":null,"lang":"en"})");
  ASSERT_FALSE(p.error) << *p.error;
  EXPECT_EQ(p.sent.at("meta"), json::parse(R"({"lang":"en"})"));
}

TEST(SubmitPrepareLine, ALineWithOnlyJobFieldsIsSentByteForByte) {
  SubmitOptions o;
  std::string line = R"({"id": "x",  "input_ids": [5, 6], "policy": "truncate", "meta": {"k": 1}})";
  const std::string original = line;
  std::string key;
  EXPECT_FALSE(PrepareLine(o, line, key));
  EXPECT_EQ(line, original);
  EXPECT_EQ(key, "x");
}

TEST(SubmitPrepareLine, ACollisionWithMetaOrAMetaThatIsNoObjectIsRefusedByName) {
  SubmitOptions o;
  Prepared p = Prepare(o, R"({"id":"a","input_ids":[1],"meta":{"title":"x"},"title":"y"})");
  ASSERT_TRUE(p.error);
  EXPECT_EQ(*p.error, "has the field `title` and a key `title` in its `meta`");

  p = Prepare(o, R"({"id":"a","input_ids":[1],"meta":[1,2],"title":"y","url":"u"})");
  ASSERT_TRUE(p.error);
  EXPECT_EQ(*p.error, "has a `meta` that is not an object, so its fields `title`, `url` cannot ride in it");
}

TEST(SubmitPrepareLine, RefuseExtraFieldsSkipsTheLineNamingThem) {
  SubmitOptions o;
  o.text = true;
  o.refuse_extra_fields = true;
  Prepared p = Prepare(o, R"({"id":"a","text":"t","url":"u","title":"x"})");
  ASSERT_TRUE(p.error);
  EXPECT_EQ(*p.error,
            "has fields a job does not carry: `title`, `url` (--refuse-extra-fields; without it they ride along in "
            "`meta`)");
  p = Prepare(o, R"({"id":"a","text":"t","meta":{"title":"x"}})");
  EXPECT_FALSE(p.error) << *p.error;
}

TEST(SubmitPrepareLine, TextFieldsMoveBeforeTheColumnsAreTaken) {
  SubmitOptions o;
  o.text = true;
  o.text_field = "content";
  o.text_pair_field = "passage";
  o.prompt_name = "query";
  Prepared p = Prepare(o, R"({"id":"q1","content":"what?","passage":"this.","doc_id":17})");
  ASSERT_FALSE(p.error) << *p.error;
  EXPECT_EQ(p.sent, json::parse(R"({"id":"q1","text":"what?","text_pair":"this.","prompt_name":"query",
                                    "meta":{"doc_id":17}})"));

  p = Prepare(o, R"({"id":"q1","content":"what?","passage":"this.","prompt_name":"passage"})");
  ASSERT_FALSE(p.error) << *p.error;
  EXPECT_EQ(p.sent["prompt_name"], "passage") << "a line's own prompt_name is never replaced";

  p = Prepare(o, R"({"id":"q2","passage":"this."})");
  ASSERT_TRUE(p.error);
  EXPECT_EQ(*p.error, "no string `content`");
  p = Prepare(o, "[1, 2]");
  ASSERT_TRUE(p.error);
  EXPECT_EQ(*p.error, "not a JSON object");
}

// --prompt-name is the prompt of the lines that name none (no member, or
// null, which a job reads as none); a line's own prompt_name is sent as the
// line has it.
TEST(SubmitPrepareLine, PromptNameFillsOnlyTheLinesThatNameNone) {
  SubmitOptions o;
  o.text = true;
  o.prompt_name = "query";
  const std::string own = R"({"id":"b","text":"x","prompt_name":"passage"})";
  std::string line = own, key;
  ASSERT_FALSE(PrepareLine(o, line, key));
  EXPECT_EQ(line, own) << "sent byte for byte";
  EXPECT_EQ(Prepare(o, R"({"id":"a","text":"x"})").sent["prompt_name"], "query");
  EXPECT_EQ(Prepare(o, R"({"id":"c","text":"x","prompt_name":null})").sent["prompt_name"], "query");
  EXPECT_EQ(Prepare(o, R"({"id":"d","text":"x","prompt_name":"","k":1})").sent["prompt_name"], "")
      << "an empty name is the line's own (the service refuses it by name)";
  o.prompt_name.clear();
  EXPECT_FALSE(Prepare(o, R"({"id":"a","text":"x"})").sent.contains("prompt_name"));
}

// `submit --images`: a folder's image files, or a JSONL naming them, as image jobs.
class SubmitImagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("qinfer-submit-images-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_ / "photos" / "2024");
    Write("photos/b.png", "PNG bytes of b");
    Write("photos/2024/a.JPG", "JPEG bytes of a");
    Write("photos/notes.txt", "not an image");
    Write("photos/large.webp", std::string(2000, 'w'));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& name, const std::string& bytes) { std::ofstream(dir_ / name) << bytes; }
  static std::vector<json> Parsed(const std::vector<std::string>& lines) {
    std::vector<json> out;
    for (const std::string& l : lines) out.push_back(json::parse(l));
    return out;
  }
  std::filesystem::path dir_;
};

TEST_F(SubmitImagesTest, AFoldersImageFilesAreJobsByRelativePathInlineOrAsFileUrls) {
  SubmitOptions o;
  o.images = (dir_ / "photos").string();
  o.max_inline_bytes = 1000;
  std::vector<std::string> bad;
  const std::vector<json> inline_jobs = Parsed(ImageJobLines(o, bad));
  ASSERT_EQ(inline_jobs.size(), 2u) << "the text file is no image, and large.webp is over the inline bound";
  EXPECT_EQ(inline_jobs[0], json({{"id", "2024/a.JPG"}, {"image", absl::Base64Escape("JPEG bytes of a")}}));
  EXPECT_EQ(inline_jobs[1]["id"], "b.png");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].find("--images-as url"), std::string::npos) << bad[0];
  o.images_as = "url";
  o.candidate_labels = {"cat", "dog"};
  bad.clear();
  const std::vector<json> urls = Parsed(ImageJobLines(o, bad));
  ASSERT_EQ(urls.size(), 3u);
  EXPECT_TRUE(bad.empty());
  EXPECT_EQ(urls[0]["image_url"], "file://" + (dir_ / "photos" / "2024" / "a.JPG").string());
  EXPECT_EQ(urls[0]["candidate_labels"], json::array({"cat", "dog"}));
}

TEST_F(SubmitImagesTest, AJsonlNamesItsImagesAndItsColumnsRideInMeta) {
  std::ofstream(dir_ / "list.jsonl") << R"({"path": "photos/b.png", "sku": 17})" << "\n"
                                     << R"({"id": "remote", "path": "https://example.test/x.jpg"})" << "\n"
                                     << R"({"id": "own", "image_url": "file:///srv/y.png"})" << "\n"
                                     << R"({"id": "none", "title": "no image"})" << "\n"
                                     << R"({"path": "photos/missing.png"})" << "\n";
  SubmitOptions o;
  o.images = (dir_ / "list.jsonl").string();
  std::vector<std::string> bad;
  std::vector<std::string> lines = ImageJobLines(o, bad);
  ASSERT_EQ(lines.size(), 3u);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_NE(bad[0].find("list.jsonl:4: no string `path`"), std::string::npos) << bad[0];
  EXPECT_NE(bad[1].find("list.jsonl:5: "), std::string::npos) << bad[1];
  // Through PrepareLine, as Submit sends them: the columns into meta.
  std::string key;
  ASSERT_FALSE(PrepareLine(o, lines[0], key));
  EXPECT_EQ(json::parse(lines[0]),
            json::parse(R"({"id": "photos/b.png", "image": ")" + absl::Base64Escape("PNG bytes of b") +
                        R"(", "meta": {"sku": 17}})"));
  EXPECT_EQ(key, "photos/b.png");
  EXPECT_EQ(json::parse(lines[1])["image_url"], "https://example.test/x.jpg");
  EXPECT_EQ(json::parse(lines[2]), json::parse(R"({"id": "own", "image_url": "file:///srv/y.png"})"));
}

TEST(ResultsExportName, OnlyTheNamesOfFormatsItWritesAreWritten) {
  for (const char* ok : {"-", "out.jsonl", "dir.v2/out.ndjson", "/tmp/a.b.jsonl", "out.parquet"}) {
    EXPECT_FALSE(ExportNameError(ok)) << ok;
  }
  auto why = ExportNameError("out.csv");
  ASSERT_TRUE(why);
  EXPECT_EQ(*why,
            "--export out.csv: not a .jsonl, .ndjson or .parquet name, the formats results writes ('-': JSONL to "
            "standard output)");
  EXPECT_TRUE(ExportNameError("dir.v2/export")) << "no extension";
  EXPECT_TRUE(ExportNameError("out.parquet.gz"));
  EXPECT_TRUE(ExportNameError(".jsonl")) << "a name that is only the extension";
  EXPECT_TRUE(ExportNameError(".parquet")) << "a name that is only the extension";
}

}  // namespace
}  // namespace qinfer::app
