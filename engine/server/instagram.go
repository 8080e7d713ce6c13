package server

import (
	"errors"
	"net/url"
	"time"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/instagram"
	"glimpse/engine/instagram/api"
	"glimpse/engine/profile"
	"glimpse/screens"
)

// Paths of the Instagram Login flow. They are server routes (redirects), not
// app screens.
const (
	PathInstagramConnect  = "/instagram/connect"
	PathInstagramCallback = "/instagram/callback"
)

func (s *Server) stateCookie() string {
	if s.Config.SecureCookies() {
		return "__Host-glimpse_ig_state"
	}
	return "glimpse_ig_state"
}

// connectInstagram starts Instagram Login: a random state in a short-lived
// cookie, then the consent screen. The state ties the callback to this
// browser, so nobody can connect their account to someone else's.
func (s *Server) connectInstagram(c fiber.Ctx) error {
	r, err := s.newRequest(c)
	if err != nil {
		return err
	}
	if !r.authorised {
		return c.Redirect().To(screens.PathSignIn)
	}
	if s.Instagram == nil {
		return c.Redirect().To(screens.PathAnalytics)
	}
	state := engine.NewToken()
	c.Cookie(&fiber.Cookie{Name: s.stateCookie(), Value: state, Path: "/", HTTPOnly: true,
		Secure: s.Config.SecureCookies(), SameSite: fiber.CookieSameSiteLaxMode, MaxAge: 600})
	return c.Redirect().To(s.Instagram.AuthorizeURL(state))
}

// instagramCallback finishes Instagram Login: it checks the state, trades the
// code for a long-lived token, reads the profile, stores the sealed token and
// a first snapshot, analyses it, and goes to Analytics. Any failure lands on
// Analytics with a reason in the query and nothing half-stored.
func (s *Server) instagramCallback(c fiber.Ctx) error {
	r, err := s.newRequest(c)
	if err != nil {
		return err
	}
	if !r.authorised {
		return c.Redirect().To(screens.PathSignIn)
	}
	if s.Instagram == nil {
		return c.Redirect().To(screens.PathAnalytics)
	}
	state := c.Cookies(s.stateCookie())
	c.Cookie(&fiber.Cookie{Name: s.stateCookie(), Value: "", Path: "/", HTTPOnly: true,
		Secure: s.Config.SecureCookies(), SameSite: fiber.CookieSameSiteLaxMode, MaxAge: -1, Expires: time.Unix(0, 0)})
	query := url.Values{}
	for k, v := range c.Queries() {
		query.Set(k, v)
	}
	fail := func(reason string, err error) error {
		s.Logger.Warn("instagram connection failed", "requestId", requestID(c), "reason", reason, "error", errText(err))
		return c.Redirect().To(screens.PathAnalytics + "?instagram=" + reason)
	}
	code, err := api.CallbackCode(query, state)
	if errors.Is(err, api.ErrDenied) {
		return fail("denied", err)
	}
	if err != nil || state == "" {
		return fail("failed", err)
	}
	ctx := c.Context()
	short, err := s.Instagram.ExchangeCode(ctx, code)
	if err != nil {
		return fail("failed", err)
	}
	tok, err := s.Instagram.LongLived(ctx, short)
	if err != nil {
		return fail("failed", err)
	}
	snap, prof, err := instagram.Snapshot(ctx, s.Instagram, tok, s.Clock.Now())
	if err != nil {
		return fail("failed", err)
	}
	sealed, err := s.Sealer.Seal(tok)
	if err != nil {
		return fail("failed", err)
	}
	user := r.principal.User.ID
	if err := s.Profiles.Connect(ctx, user, profile.SourceAPI, prof.Username, 0); err != nil {
		return fail("failed", err)
	}
	if err := s.Profiles.SetCredential(ctx, user, sealed); err != nil {
		return fail("failed", err)
	}
	// Meta's deauthorize and data-deletion callbacks name the Instagram
	// user only (privacy.Service).
	if err := s.Profiles.LinkInstagram(ctx, user, prof.ID, prof.UserID); err != nil {
		return fail("failed", err)
	}
	if _, err := s.Profiles.AddSnapshot(ctx, user, snap); err != nil {
		return fail("failed", err)
	}
	if _, err := s.Profiles.Analyse(ctx, user); err != nil {
		return fail("failed", err)
	}
	return c.Redirect().To(screens.PathAnalytics)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
