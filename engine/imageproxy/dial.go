package imageproxy

import (
	"fmt"
	"net/netip"
)

// refusedPrefixes are ranges that are not internet destinations but that
// netip's predicates do not cover: "this network", carrier-grade NAT (often
// internal in clouds), IETF protocol assignments, benchmarking and reserved
// space. See https://www.iana.org/assignments/iana-ipv4-special-registry/.
var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
}

// nat64 is the well-known NAT64 prefix (RFC 6052): its addresses carry an
// IPv4 address in their last 32 bits, which is the one really reached.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// checkDialAddress is the dialer's Control check. address is the resolved
// "ip:port" about to be connected to, so the decision is made on what is
// actually dialled rather than on a hostname. allowLoopback exists only for
// tests reaching an httptest server.
func checkDialAddress(network, address string, allowLoopback bool) error {
	if network != "tcp4" && network != "tcp6" {
		return fmt.Errorf("%w: network %q", ErrPrivateAddress, network)
	}
	addrPort, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unparsable address %q", ErrPrivateAddress, address)
	}
	ip := addrPort.Addr().Unmap()
	if allowLoopback && ip.IsLoopback() {
		return nil
	}
	if !publicAddress(ip) {
		return fmt.Errorf("%w: %s", ErrPrivateAddress, ip)
	}
	return nil
}

// publicAddress reports whether ip is a unicast internet address: not
// loopback, private (RFC 1918, RFC 4193), link-local, unspecified,
// multicast or one of refusedPrefixes.
func publicAddress(ip netip.Addr) bool {
	ip = ip.Unmap()
	if nat64.Contains(ip) {
		embedded := ip.As16()
		ip = netip.AddrFrom4([4]byte(embedded[12:]))
	}
	if !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() ||
		ip.IsLinkLocalUnicast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, prefix := range refusedPrefixes {
		if prefix.Contains(ip) {
			return false
		}
	}
	return true
}
