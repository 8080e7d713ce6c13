package breach_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"

	"glimpse/engine/breach"
)

func TestPlainText(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"plain text unchanged", "In 2015, 4M accounts leaked.", "In 2015, 4M accounts leaked."},
		{"link becomes its text", `Read <a href="https://x.example" target="_blank" rel="noopener">the notice</a>.`, "Read the notice."},
		{"entities decoded", "Tom &amp; Jerry&#39;s &quot;shop&quot; &lt;3 &copy;", `Tom & Jerry's "shop" <3 ©`},
		{"inline tags join words", "un<em>salted</em> <strong>MD5</strong>", "unsalted MD5"},
		{"block tags separate words", "one<br>two<p>three</p>four<li>five", "one two three four five"},
		{"script content dropped", `before<script>alert("x")</script>after`, "before after"},
		{"self-closing script content dropped", `a<script/>alert(1)</script>b`, "a b"},
		{"unclosed script drops the rest", `a<script>alert(1)`, "a"},
		{"style content dropped", "a<style>body{color:red}</style>b", "a b"},
		{"iframe content dropped", "a<iframe>x</iframe>b", "a b"},
		{"svg content dropped", `a<svg><text>x</text></svg>b`, "a b"},
		{"comment dropped", "a<!-- secret -->b", "ab"},
		{"attribute with angle bracket", `<a title="a>b" href="#">link</a>`, "link"},
		{"event handler dropped", `<img src=x onerror="alert(1)">text`, "text"},
		{"escaped markup removed too", "&lt;script&gt;alert(1)&lt;/script&gt;safe", "safe"},
		{"doubly escaped markup is decoded once", "&amp;lt;b&amp;gt;bold", "&lt;b&gt;bold"},
		{"less-than in prose kept", "a < b and 3<4", "a < b and 3<4"},
		{"whitespace collapsed", "  many\n\tspaces\r\n  here  ", "many spaces here"},
		{"control and invisible characters dropped", "a\x00b\x07c\u200bd\ufeffe", "abcde"},
		{"invalid UTF-8 dropped", "caf\xc3 ok", "caf ok"},
		{"empty", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := breach.PlainText(tc.in); got != tc.want {
				t.Errorf("PlainText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzPlainText checks that whatever HIBP sends, the result is valid UTF-8,
// holds no markup a browser would parse, and has no stray whitespace.
func FuzzPlainText(f *testing.F) {
	for _, s := range []string{
		`In 2015 <a href="https://x.example">x</a> &amp; y.`, "<script>alert(1)</script>",
		"&lt;b&gt;x&lt;/b&gt;", "<!-- c --><p>p</p>", "a < b", "<svg/onload=alert(1)>", "\x00<\x00a>",
		"&amp;lt;&amp;lt;a&amp;gt;", "<<a>a>", "<textarea/>x</textarea>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := breach.PlainText(in)
		if !utf8.ValidString(out) {
			t.Fatalf("PlainText(%q) = %q: invalid UTF-8", in, out)
		}
		if out != strings.TrimSpace(out) || strings.Contains(out, "  ") {
			t.Fatalf("PlainText(%q) = %q: whitespace not collapsed", in, out)
		}
		z := html.NewTokenizer(strings.NewReader(out))
		for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
			if tt != html.TextToken {
				t.Fatalf("PlainText(%q) = %q: still holds a %v token", in, out, tt)
			}
		}
	})
}
