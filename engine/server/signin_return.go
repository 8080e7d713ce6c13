package server

import (
	"net/url"
	"strings"

	"glimpse/engine/privacy"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// paramNext is sign-in's return address: /sign-in?next=<local path>. A
// link that needs the person signed in (the mailed export link) sends them
// there, and signing in returns to it instead of the dashboard. The access
// log redacts the secrets inside it (engine/redact).
const paramNext = "next"

// maxNext bounds a return address: the export link is well under it.
const maxNext = 1024

// signInPath is the sign-in screen that returns to next once signed in.
func signInPath(next string) string {
	return screens.PathSignIn + "?" + paramNext + "=" + url.QueryEscape(next)
}

// localPath is next when it is a path of this site, and false for anything
// a browser could read as another origin: a scheme, "//host", a backslash
// (browsers read "/\host" as "//host"), control characters or spaces.
func localPath(next string) (*url.URL, bool) {
	if next == "" || len(next) > maxNext || next[0] != '/' || strings.HasPrefix(next, "//") {
		return nil, false
	}
	for i := 0; i < len(next); i++ {
		if c := next[i]; c <= ' ' || c == 0x7f || c == '\\' {
			return nil, false
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
		return nil, false
	}
	return u, true
}

// afterSignInGo is where a sign-in sends the person: back to the screen's
// ?next= when it is the export download (the privacy screen, with the
// download started) or a subscriber screen of this app, else the dashboard.
func (s *Server) afterSignInGo(r *request) *ui.Result {
	home := ui.Effects(ui.Replace(screens.PathDashboard))
	if r.query == nil {
		return home
	}
	u, ok := localPath(r.query.Get(paramNext))
	if !ok {
		return home
	}
	if u.Path == privacy.DownloadPath {
		if u.Query().Get("key") == "" {
			return ui.Effects(ui.Replace(screens.PathPrivacyData))
		}
		return ui.Effects(ui.Replace(screens.PathPrivacyData),
			ui.Download(u.RequestURI(), exportFilename(s.Clock.Now().Format("2006-01-02"))))
	}
	if rt, ok := s.match(strings.TrimRight(u.Path, "/")); ok && rt.guard == protected {
		return ui.Effects(ui.Replace(u.RequestURI()))
	}
	return home
}
