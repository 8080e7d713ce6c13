package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestSchemaAcceptsEveryBuilder(t *testing.T) {
	t.Parallel()
	screen := Screen("demo", "Demo",
		Stack("md",
			Text("title", "Hello"),
			Image("/static/a.svg", ""),
			Button("Go", "primary", Navigate("/dashboard")),
			Link("Terms", OpenURL("/terms-of-use", true)),
			Card(Navigate("/x"), Text("body", "card")),
			List(true, &Node{Type: "list_item", Title: "item"}),
			Divider(),
			Badge("New", "brand"),
			Loader("Loading", false),
			Form("f", Submit("session.sign_in", "f"),
				TextInput("email", "email", "Email address", "Enter your email address",
					Required("Wrong email format"), Email("Wrong email format")),
				TextInput("password", "password", "Password", "", MinLength(6, "Min 6 symbols")),
				FormError("f"),
			),
			Button("Later", "secondary", After(2500, Sequence(SetState("/ui/step", 2), CloseOverlay("")))),
			&Node{Type: "stat_tile", Label: "Lost followers", Value: &NullableString{}},
			&Node{Type: "countdown", EndsAt: Timestamp(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))},
			&Node{Type: "button", Label: "x", Action: Track("e", nil),
				DisabledWhen: Or(Not(Truthy("/a")), Compare("eq", PathOperand("/b"), LiteralOperand(3)))},
		),
	)
	env := Envelope{V: 1, Screen: screen, Meta: Meta{ServerNow: Timestamp(time.Now()),
		Brand: Brand{Key: "default", Name: "Glimpse", Theme: map[string]string{"primary": "#3366ff"}}},
		Overlays: map[string]*Node{"menu": Dialog("menu", "drawer", "Menu", Link("Log out", SignOut()))}}
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateEnvelope(b); err != nil {
		t.Fatalf("valid envelope rejected: %v\n%s", err, b)
	}
}

func TestSchemaRejectsMistakes(t *testing.T) {
	t.Parallel()
	cases := map[string]*Node{
		"unknown type":        {Type: "marquee"},
		"text without text":   {Type: "text", Style: "body"},
		"field on wrong node": {Type: "divider", Label: "oops"},
		"input without label": {Type: "text_input", ID: "x", Bind: "/form/x"},
		"bad action":          {Type: "button", Label: "x", Action: &Action{Type: "navigate", To: "javascript:alert(1)"}},
	}
	for name, n := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := ValidateNode(n)
			if err == nil {
				t.Fatalf("schema accepted %s", name)
			}
			if !strings.Contains(err.Error(), "schema") {
				t.Fatalf("unexpected error: %v", err)
			}
		})
	}
}

func TestSchemaRejectsProtocolRelativeURLs(t *testing.T) {
	t.Parallel()
	for _, n := range []*Node{
		Link("x", Navigate("//evil.example/path")),
		Link("x", OpenURL("//evil.example", true)),
		Link("x", Navigate(`/\evil.example`)),
		Image("//evil.example/a.png", ""),
	} {
		if err := ValidateNode(n); err == nil {
			b, _ := json.Marshal(n)
			t.Errorf("schema accepted %s", b)
		}
	}
	if err := ValidateNode(Link("x", Navigate("/"))); err != nil {
		t.Errorf("schema rejected the root path: %v", err)
	}
}
