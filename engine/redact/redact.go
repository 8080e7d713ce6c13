// Package redact keeps secrets that arrive in URLs out of what the server
// writes down: the access log (engine/server) and error reports
// (engine/sentry) redact a query with the same list and the same function,
// so a parameter added here is hidden from both.
package redact

import (
	"net/url"
	"strings"
)

// Marker replaces a secret value. It needs no escaping, so a redacted query
// stays readable in a log line.
const Marker = "redacted"

// Unparseable is what Query returns for a query it cannot parse: dropping it
// whole is safer than guessing where its secrets are.
const Unparseable = "unparseable"

// params are the query parameters whose values are secrets, in lower case
// (they match in any case). Each is a credential in a link we send or
// receive, or the key that a link turns into one:
//   - creds, login: the legacy credentials link and one-time sign-in links
//     (the renderer moves them out of the address bar, but the first request
//     of an old renderer or a bot still carries them);
//   - token, code, state, access_token: OAuth and other tokens (the Instagram
//     callback's code and state);
//   - from: the cancel-by-email link, /unsubscription?from=<token>, cancels a
//     plan with no sign-in (issue #20). The flow's own ?from=<return path> is
//     no secret, but it carries a page's query, which may hold one;
//   - reset: the password-reset token, sent in a fragment (#reset=) that
//     browsers keep to themselves, hidden here should a link ever carry it in
//     a query;
//   - id, subscription: a subscription id, which /access-recovery?id= takes
//     as proof of payment to create an account, and which
//     /checkout/done?id= and /checkout/card?subscription= also carry. The
//     access log has hidden ?id= from the start; a failing request is found
//     by its request id, not by the subscription's;
//   - password, email: a password, and a person's address, which the log
//     does not keep.
var params = []string{"creds", "login", "token", "code", "state", "access_token", "from", "reset",
	"key", "id", "subscription", "password", "email", "order"}

// Names returns the secret parameters' names, in lower case, for deny lists
// such as the Sentry SDK's.
func Names() []string { return append([]string(nil), params...) }

// Param reports whether a query parameter's value is a secret. It ignores
// case and does not allocate.
func Param(name string) bool {
	for _, p := range params {
		if strings.EqualFold(name, p) {
			return true
		}
	}
	return false
}

// Query returns raw with the values of secret parameters replaced by Marker,
// also inside the path parameter of /ui/screen, which carries the page's own
// URL and so its query, and inside sign-in's next, the address to return to
// (the mailed export link's key). The result is in url.Values.Encode's form (keys
// sorted, values escaped alike).
func Query(raw string) string {
	if raw == "" {
		return ""
	}
	if canonicalWithoutSecrets(raw) {
		// Nothing to redact, and parsing and encoding would give raw back:
		// the common case (?path=%2Fdashboard) costs a scan, no allocation.
		return raw
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return Unparseable
	}
	for k, vs := range q {
		for i, v := range vs {
			switch {
			case Param(k):
				vs[i] = Marker
			case k == "path" || k == "next":
				if p, query, ok := strings.Cut(v, "?"); ok {
					vs[i] = p + "?" + Query(query)
				}
			}
		}
	}
	return q.Encode()
}

// canonicalWithoutSecrets reports, without allocating, that raw names no
// parameter Query would redact (no secret name, no path carrying a query of
// its own) and is already what url.Values.Encode writes for it: name=value
// pairs joined by '&', every name non-empty and unreserved (A-Z a-z 0-9 - _
// . ~) and in sorted order (equal names together, as Encode groups them),
// every value unreserved bytes, '+' (a space) or %XX escapes in upper case of
// bytes QueryEscape escapes. Anything else takes the full parse; a false
// answer only costs time.
func canonicalWithoutSecrets(raw string) bool {
	prev := ""
	for pair := range strings.SplitSeq(raw, "&") {
		name, value, ok := strings.Cut(pair, "=")
		if !ok || name == "" || name < prev {
			return false
		}
		for i := 0; i < len(name); i++ {
			if !unreserved(name[i]) {
				return false
			}
		}
		if Param(name) {
			return false
		}
		if (name == "path" || name == "next") && strings.Contains(value, "%3F") {
			return false // a URL with a query: its parameters need a look
		}
		for i := 0; i < len(value); i++ {
			c := value[i]
			switch {
			case unreserved(c), c == '+':
			case c == '%':
				if i+2 >= len(value) || !upperHex(value[i+1]) || !upperHex(value[i+2]) {
					return false
				}
				b := unhex(value[i+1])<<4 | unhex(value[i+2])
				if unreserved(b) || b == ' ' {
					return false // QueryEscape writes it as itself or '+'
				}
				i += 2
			default:
				return false
			}
		}
		prev = name
	}
	return true
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~'
}

func upperHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'A' + 10
}
