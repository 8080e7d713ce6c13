package auth

import (
	"testing"
	"unicode/utf8"
)

// Browsers as they name themselves (user agents from MDN's guide and the
// browsers' own documentation) read as people say them.
func TestDeviceOf(t *testing.T) {
	for ua, want := range map[string]string{
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36":                          "Chrome on Android",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1":        "Safari on iPhone",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1": "Chrome on iPhone",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0":                  "Edge on Windows",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14.7; rv:132.0) Gecko/20100101 Firefox/132.0":                                                            "Firefox on Mac",
		"Mozilla/5.0 (Linux; Android 14; SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36":     "Samsung Internet on Android",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36":                                  "Chrome on Linux",
		"curl/8.5.0": "",
		"":           "",
	} {
		if got := DeviceOf(ua); got != want {
			t.Errorf("DeviceOf(%.60q) = %q, want %q", ua, got, want)
		}
	}
}

// Whatever a client sends, the label is short, valid text and one of the
// few DeviceOf writes.
func FuzzDeviceOf(f *testing.F) {
	for _, seed := range []string{"", "curl/8.5.0", "Mozilla/5.0 (Linux; Android 14) Chrome/131.0 Safari/537.36", "Edg/ iPhone", "\xff\xfe"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ua string) {
		d := DeviceOf(ua)
		if len(d) > maxDevice || !utf8.ValidString(d) {
			t.Fatalf("DeviceOf(%q) = %q", ua, d)
		}
	})
}
