// The URLs `tessera migrate` accepts for a server, and what it says about the others.
#include "app/remote_server.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tessera::app {
namespace {

TEST(ServerUrl, HostPortAndContextPathAreTakenApart) {
  ServerUrl url = ParseServerUrl("http://bi-prod.example.com:8443/TesseraLibrary/", "--target");
  EXPECT_EQ(url.host, "bi-prod.example.com");
  EXPECT_EQ(url.port, 8443);
  EXPECT_EQ(url.base_path, "/TesseraLibrary");
  EXPECT_EQ(url.text, "http://bi-prod.example.com:8443/TesseraLibrary/");
}

TEST(ServerUrl, ThePortDefaultsTo80AndTheSlashIsOptional) {
  ServerUrl url = ParseServerUrl("http://127.0.0.1", "--source");
  EXPECT_EQ(url.host, "127.0.0.1");
  EXPECT_EQ(url.port, 80);
  EXPECT_EQ(url.base_path, "");
  EXPECT_EQ(url.text, "http://127.0.0.1:80/");
}

TEST(ServerUrl, AnythingElseIsRefusedNamingTheFlagAndTheForm) {
  const std::string form = "; expected http://HOST[:PORT][/PATH], e.g. http://127.0.0.1:8080/";
  auto refusal = [](const std::string& text) {
    try {
      ParseServerUrl(text, "--source");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal("ftp://host/"), "--source 'ftp://host/': not an http:// URL" + form);
  EXPECT_EQ(refusal("https://host/"), "--source 'https://host/': https is not supported" + form);
  EXPECT_EQ(refusal("http://host:http/"),
            "--source 'http://host:http/': the port 'http' is not a number from 1 to 65535" + form);
  EXPECT_EQ(
      refusal("http://host:70000/"),
      "--source 'http://host:70000/': the port '70000' is not a number from 1 to 65535" + form);
  EXPECT_EQ(refusal("http:///path"), "--source 'http:///path': no host" + form);
  EXPECT_EQ(refusal("localhost:8080"), "--source 'localhost:8080': not an http:// URL" + form);
}

}  // namespace
}  // namespace tessera::app
