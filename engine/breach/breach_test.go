package breach_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine/breach"
)

func TestBreachDecodesHIBPModel(t *testing.T) {
	t.Parallel()
	// Shaped like the Minefield entry of HIBP's catalogue (the breach model of
	// docs/hibp.md §4), with an HTML description as HIBP sends them.
	const body = `{"Name":"Minefield","Title":"Minefield","Domain":"minefield.fr","BreachDate":"2015-06-28",
		"AddedDate":"2016-03-09T08:18:43Z","ModifiedDate":"2016-03-09T08:18:43Z","PwnCount":188343,
		"Description":"In June 2015, the French Minecraft server <a href=\"https://www.zataz.com/\" target=\"_blank\" rel=\"noopener\">Minefield was hacked</a> &amp; leaked.",
		"LogoPath":"https://logos.haveibeenpwned.com/Minefield.png",
		"DataClasses":["Dates of birth","Email addresses","IP addresses","Passwords","Usernames","Website activity"],
		"IsVerified":true,"IsFabricated":false,"IsSensitive":false,"IsRetired":false,"IsSpamList":false,"IsMalware":false,
		"IsSubscriptionFree":false,"IsStealerLog":false,"Attribution":null}`
	var got breach.Breach
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	want := breach.Breach{
		Name: "Minefield", Title: "Minefield", Domain: "minefield.fr", BreachDate: "2015-06-28",
		AddedDate: time.Date(2016, 3, 9, 8, 18, 43, 0, time.UTC), PwnCount: 188343,
		Description: "In June 2015, the French Minecraft server Minefield was hacked & leaked.",
		LogoPath:    "https://logos.haveibeenpwned.com/Minefield.png",
		DataClasses: []string{"Dates of birth", "Email addresses", "IP addresses", "Passwords", "Usernames", "Website activity"},
		IsVerified:  true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded breach (-want +got):\n%s", diff)
	}
}

func TestBreachDates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		breachDate     string
		addedDate      string
		wantBreachDate string
		wantAddedDate  time.Time
	}{
		{"date only", "2015-06-28", "2016-03-09T08:18:43Z", "2015-06-28", time.Date(2016, 3, 9, 8, 18, 43, 0, time.UTC)},
		{"breach date with a time keeps the date", "2015-06-28T00:00:00Z", "2016-03-09T08:18Z", "2015-06-28", time.Date(2016, 3, 9, 8, 18, 0, 0, time.UTC)},
		{"offset added date in UTC", "2020-01-01", "2020-02-01T10:00:00+02:00", "2020-01-01", time.Date(2020, 2, 1, 8, 0, 0, 0, time.UTC)},
		{"added date without zone", "2020-01-01", "2020-02-01T10:00:00", "2020-01-01", time.Date(2020, 2, 1, 10, 0, 0, 0, time.UTC)},
		{"not a date", "June 2015", "yesterday", "", time.Time{}},
		{"impossible date", "2015-02-30", "", "", time.Time{}},
		{"empty", "", "", "", time.Time{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body, _ := json.Marshal(map[string]string{"Name": "X", "BreachDate": tc.breachDate, "AddedDate": tc.addedDate})
			var got breach.Breach
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if got.BreachDate != tc.wantBreachDate || !got.AddedDate.Equal(tc.wantAddedDate) {
				t.Errorf("BreachDate %q AddedDate %v, want %q %v", got.BreachDate, got.AddedDate, tc.wantBreachDate, tc.wantAddedDate)
			}
		})
	}
}

func TestBreachLogoPath(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"https", "https://logos.haveibeenpwned.com/Adobe.png", "https://logos.haveibeenpwned.com/Adobe.png"},
		{"root-relative", "/static/breaches/adobe.svg", "/static/breaches/adobe.svg"},
		{"empty", "", ""},
		{"plain http", "http://logos.example/a.png", ""},
		{"javascript", "javascript:alert(1)", ""},
		{"data", "data:image/svg+xml;base64,PHN2Zz4=", ""},
		{"protocol-relative", "//evil.example/a.png", ""},
		{"backslash", `/\evil.example/a.png`, ""},
		{"relative", "logo.png", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body, _ := json.Marshal(map[string]string{"Name": "X", "LogoPath": tc.in})
			var got breach.Breach
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if got.LogoPath != tc.want {
				t.Errorf("LogoPath %q → %q, want %q", tc.in, got.LogoPath, tc.want)
			}
		})
	}
}
