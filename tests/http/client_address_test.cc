// The client address of a request behind trusted proxies (http/client_address.h): the peer when
// it is not trusted, otherwise the rightmost X-Forwarded-For entry that is not a trusted proxy,
// never an entry the trusted proxies did not vouch for.
#include "http/client_address.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tessera::http {
namespace {

Headers ForwardedFor(std::initializer_list<std::string> values) {
  Headers headers;
  for (const auto& value : values) headers.Add("X-Forwarded-For", value);
  return headers;
}

TEST(TrustedProxies, AreIpAddressesInCanonicalFormSeparatedByCommas) {
  EXPECT_EQ(ParseTrustedProxies(""), std::vector<std::string>{});
  EXPECT_EQ(ParseTrustedProxies(" 10.0.0.5 ,::1,2001:DB8:0:0::7"),
            (std::vector<std::string>{"10.0.0.5", "::1", "2001:db8::7"}));
}

TEST(TrustedProxies, AnythingButAnAddressIsRefusedNamingIt) {
  for (const char* list : {"10.0.0.0/8", "proxy.internal", "10.0.0.5,,10.0.0.6", "300.1.1.1"}) {
    try {
      ParseTrustedProxies(list);
      ADD_FAILURE() << "accepted " << list;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("is not an IP address"), std::string::npos) << e.what();
    }
  }
}

TEST(ClientAddress, AnUntrustedPeerIsTheClientWhateverItForwards) {
  const std::vector<std::string> trusted = {"10.0.0.5"};
  EXPECT_EQ(ClientAddressOf("198.51.100.7", ForwardedFor({"203.0.113.9"}), trusted),
            "198.51.100.7");
  EXPECT_EQ(ClientAddressOf("198.51.100.7", ForwardedFor({"203.0.113.9"}), {}), "198.51.100.7");
}

TEST(ClientAddress, ATrustedProxyNamesTheClientItReceivedTheRequestFrom) {
  const std::vector<std::string> trusted = {"10.0.0.5", "10.0.0.6"};
  EXPECT_EQ(ClientAddressOf("10.0.0.5", ForwardedFor({"203.0.113.9"}), trusted), "203.0.113.9");
  // The client's own entries come first; a chain of trusted proxies appends to the right.
  EXPECT_EQ(ClientAddressOf("10.0.0.5", ForwardedFor({"1.2.3.4, 203.0.113.9, 10.0.0.6"}), trusted),
            "203.0.113.9");
  EXPECT_EQ(ClientAddressOf("10.0.0.5", ForwardedFor({"1.2.3.4", "203.0.113.9"}), trusted),
            "203.0.113.9");
  EXPECT_EQ(ClientAddressOf("10.0.0.5", ForwardedFor({" 2001:DB8::1 "}), trusted), "2001:db8::1");
}

TEST(ClientAddress, WithoutAnEntryItCanVouchForThePeerIsTheClient) {
  const std::vector<std::string> trusted = {"10.0.0.5", "10.0.0.6"};
  EXPECT_EQ(ClientAddressOf("10.0.0.5", Headers(), trusted), "10.0.0.5");
  EXPECT_EQ(ClientAddressOf("10.0.0.5", ForwardedFor({"10.0.0.6"}), trusted), "10.0.0.5");
  EXPECT_EQ(ClientAddressOf("10.0.0.5", ForwardedFor({"1.2.3.4, not-an-address"}), trusted),
            "10.0.0.5");
  EXPECT_EQ(ClientAddressOf("10.0.0.5", ForwardedFor({""}), trusted), "10.0.0.5");
}

}  // namespace
}  // namespace tessera::http
