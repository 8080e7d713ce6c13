package auth

import (
	"context"
	"strings"
)

// A session keeps the kind of browser it was opened in, as a short label
// ("Chrome on Android"), so the support desk can tell a subscriber's phone
// from their laptop. Only the label is kept: not the user agent (a
// fingerprint) and not the address it came from (a place), which the desk
// has no need of.

// Origin is where a session is being opened from, as the request that may
// open one tells it: its browser's label (DeviceOf) and its country
// (CountryOf); either may be "". The session keeps both.
type Origin struct {
	Device, Country string
}

type originKey struct{}

// WithOrigin returns ctx carrying the origin of the request that may open a
// session (sign-in, a sign-in link, an account's creation): those calls take
// it from their context rather than from one more parameter each.
func WithOrigin(ctx context.Context, o Origin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

func originFrom(ctx context.Context) Origin {
	o, _ := ctx.Value(originKey{}).(Origin)
	return o
}

// maxDevice bounds a label: the longest DeviceOf writes is well under it.
const maxDevice = 40

// DeviceOf names a browser and its system from a User-Agent header, as
// people say them: "Chrome on Android", "Safari on iPhone", "Firefox on
// Windows"; "" when it names neither. The order of the checks matters:
// Edge, Opera and Samsung Internet also say "Chrome", Chrome says "Safari",
// and Chrome on iOS says "CriOS" (see
// https://developer.mozilla.org/en-US/docs/Web/HTTP/Guides/Browser_detection_using_the_user_agent).
func DeviceOf(ua string) string {
	if len(ua) > 1024 {
		ua = ua[:1024]
	}
	browser := ""
	for _, b := range [...]struct{ token, name string }{
		{"Edg/", "Edge"}, {"EdgiOS/", "Edge"}, {"EdgA/", "Edge"}, {"OPR/", "Opera"}, {"SamsungBrowser/", "Samsung Internet"},
		{"Firefox/", "Firefox"}, {"FxiOS/", "Firefox"}, {"CriOS/", "Chrome"}, {"Chrome/", "Chrome"}, {"Safari/", "Safari"},
	} {
		if strings.Contains(ua, b.token) {
			browser = b.name
			break
		}
	}
	system := ""
	for _, s := range [...]struct{ token, name string }{
		{"iPhone", "iPhone"}, {"iPad", "iPad"}, {"Android", "Android"}, {"CrOS", "ChromeOS"}, {"Windows", "Windows"},
		{"Macintosh", "Mac"}, {"Linux", "Linux"},
	} {
		if strings.Contains(ua, s.token) {
			system = s.name
			break
		}
	}
	switch {
	case browser != "" && system != "":
		return browser + " on " + system
	case browser != "":
		return browser
	default:
		return system
	}
}
