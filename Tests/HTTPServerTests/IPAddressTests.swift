import IPNetworks
import Testing

@Suite("IP addresses and networks")
struct IPAddressTests {
    @Test(arguments: [
        ("1.2.3.4", "1.2.3.4", true),
        ("0.0.0.0", "0.0.0.0", true),
        ("255.255.255.255", "255.255.255.255", true),
        ("::ffff:1.2.3.4", "1.2.3.4", true),
        ("::FFFF:102:304", "1.2.3.4", true),
        ("2001:DB8::1", "2001:db8::1", false),
        ("::1", "::1", false),
        ("::", "::", false),
        ("::1.2.3.4", "::1.2.3.4", false),
    ])
    func parsesAndPrints(_ text: String, _ printed: String, _ isIPv4: Bool) throws {
        let address = try #require(IPAddress(text))
        #expect(address.description == printed)
        #expect(address.isIPv4 == isIPv4)
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.255.0.9", true), ("::ffff:127.0.0.1", true), ("::1", true),
        ("128.0.0.1", false), ("126.255.255.255", false), ("::2", false), ("::", false), ("1::1", false),
        ("::127.0.0.1", false), ("0.0.0.0", false),
    ])
    func loopback(_ text: String, _ isLoopback: Bool) throws {
        #expect(try #require(IPAddress(text)).isLoopback == isLoopback)
    }

    @Test(arguments: [
        "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.4 ", " 1.2.3.4", "1.2.3.4:80", "[::1]",
        "2001:db8::1%eth0", "2001:db8:::1", "localhost", "1.2.3.4/32", "::ffff:1.2.3.400",
    ])
    func rejects(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func ipv4MappedIsTheSameAddress() {
        #expect(IPAddress("::ffff:10.1.2.3") == IPAddress("10.1.2.3"))
        #expect(IPAddress("::ffff:10.1.2.3")?.clientNetwork == IPAddress("10.1.2.3"))
    }

    /// IPv4 clients are told apart by address, IPv6 clients by /64.
    @Test func clientNetworks() {
        #expect(IPAddress("10.1.2.3")?.clientNetwork != IPAddress("10.1.2.4")?.clientNetwork)
        #expect(IPAddress("2001:db8:0:1::1")?.clientNetwork == IPAddress("2001:db8:0:1:ffff:ffff:ffff:ffff")?.clientNetwork)
        #expect(IPAddress("2001:db8:0:1::1")?.clientNetwork == IPAddress("2001:db8:0:1::"))
        #expect(IPAddress("2001:db8:0:1::1")?.clientNetwork != IPAddress("2001:db8:0:2::1")?.clientNetwork)
    }

    @Test(arguments: [
        ("10.0.0.0/8", "10.255.1.2", true),
        ("10.0.0.0/8", "11.0.0.0", false),
        ("10.0.0.0/8", "::ffff:10.9.9.9", true),
        ("10.1.2.3/8", "10.200.0.1", true),
        ("192.168.1.0/24", "192.168.1.255", true),
        ("192.168.1.0/24", "192.168.2.0", false),
        ("192.168.1.7", "192.168.1.7", true),
        ("192.168.1.7", "192.168.1.8", false),
        ("0.0.0.0/0", "203.0.113.1", true),
        ("0.0.0.0/0", "2001:db8::1", false),
        ("2001:db8::/32", "2001:db8:ffff::1", true),
        ("2001:db8::/32", "2001:db9::1", false),
        ("2001:db8::/32", "10.0.0.1", false),
        ("2001:db8::1", "2001:db8::1", true),
        ("2001:db8::1", "2001:db8::2", false),
        ("2001:db8:0:1::/64", "2001:db8:0:1:abcd::1", true),
        ("2001:db8::/127", "2001:db8::1", true),
        ("2001:db8::/127", "2001:db8::2", false),
        ("::/0", "2001:db8::1", true),
        ("::ffff:10.0.0.0/104", "10.3.4.5", true),
        ("::ffff:10.0.0.0/104", "11.3.4.5", false),
    ])
    func contains(_ network: String, _ address: String, _ expected: Bool) throws {
        let network = try #require(IPNetwork(network))
        let address = try #require(IPAddress(address))
        #expect(network.contains(address) == expected)
    }

    @Test(arguments: [
        ("10.1.2.3/8", "10.0.0.0/8"),
        ("192.168.1.7", "192.168.1.7/32"),
        ("2001:db8::1", "2001:db8::1/128"),
        ("2001:DB8:ffff::/32", "2001:db8::/32"),
        ("0.0.0.0/0", "0.0.0.0/0"),
    ])
    func normalises(_ text: String, _ printed: String) throws {
        #expect(try #require(IPNetwork(text)).description == printed)
    }

    @Test(arguments: [
        "", "/8", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/8/8", "10.0.0.0/ 8",
        "10.0.0.0/0008", "2001:db8::/129", "10.0.0.0/8 ", "lb.example", "10.0.0.0-10.0.0.9", "*",
    ])
    func rejectsBadNetworks(_ text: String) {
        #expect(IPNetwork(text) == nil)
    }
}
