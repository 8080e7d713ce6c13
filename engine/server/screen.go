package server

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/fnv"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/assets"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/profile"
	"glimpse/engine/staff"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// guard says who may see a route.
type guard int

const (
	public    guard = iota // anyone
	guestOnly              // signed-out people; the signed-in go to the dashboard
	protected              // authorised subscribers; others go to sign-in
	// guardDevMailbox admits clients on this machine only (loopback): the
	// development mailbox shows every mail's links. Anyone else finds the
	// path unknown.
	guardDevMailbox
	// guardStaff admits any signed-in staff member (the route's screen finds
	// them in request.member). Everyone else gets the studio sign-in: at
	// /studio itself, or sent there from any other studio path. What a role
	// may change is the actions' concern (actionSpec.staff), since a tester
	// may look at every studio screen. Support staff may not: they are
	// sent from /studio to their desk and refused (403) elsewhere.
	guardStaff
	// guardSupport admits support staff and admins (the support desk); other
	// staff are refused with 403, and anyone else gets the studio sign-in
	// as with guardStaff.
	guardSupport
)

func (s *Server) signInScreen(r *request) (screens.Page, error) {
	return screens.SignIn(r.copy, s.billingURL()), nil
}

func (s *Server) billingURL() string { return "/checkout?quiz=true&page=SUBSCRIPTION" }

// request is what one screen or action request knows about its caller.
type request struct {
	fiber fiber.Ctx
	brand brand.Brand
	// copy is the brand and its words the request's screens are composed
	// with (screens.Context), not a Go context: that is fiber.Context().
	copy       screens.Context
	principal  auth.Principal
	signedIn   bool
	authorised bool
	mainSub    billing.Subscription
	path       string
	query      url.Values
	// member is the signed-in staff member, set only once a staff guard
	// (guardStaff on a route, actionSpec.staff on an action) has admitted
	// the request.
	member staff.Member
	// experiments are the subscriber's variants in the experiments the
	// composed screen showed, for meta.experiments (experimentContext).
	experiments []ui.Experiment
	// insights is the subscriber's profile summary once insightsRead
	// (Server.insights).
	insights     profile.Summary
	insightsRead bool
}

// originContext is the request's context carrying where a session opened
// by it comes from: its browser's label (auth.DeviceOf its User-Agent) and
// its country (countryOf), read only by the calls that may open a session,
// not on every request. The session keeps both; the support desk's
// sign-ins show them.
func (s *Server) originContext(r *request) context.Context {
	return auth.WithOrigin(r.fiber.Context(), auth.Origin{Device: auth.DeviceOf(r.fiber.Get(fiber.HeaderUserAgent)), Country: s.countryOf(r.fiber)})
}

// countryOf reads the client's country from the header the proxy in front
// sets (GLIMPSE_COUNTRY_HEADER, e.g. Cloudflare's CF-IPCountry) as an ISO
// 3166-1 alpha-2 code (auth.CountryOf). Without the setting no header is
// read: a client can send any header, and only a proxy that sets it on
// every request makes it true. With GLIMPSE_TRUSTED_PROXIES set, it is
// believed only from one of them, like X-Forwarded-For. The IP address the
// country was found from is never kept.
func (s *Server) countryOf(c fiber.Ctx) string {
	if s.Config.CountryHeader == "" {
		return ""
	}
	if peer, ok := netip.AddrFromSlice(c.RequestCtx().RemoteIP()); len(s.Config.TrustedProxies) > 0 && (!ok || !s.trustedProxy(peer)) {
		return ""
	}
	return auth.CountryOf(c.Get(s.Config.CountryHeader))
}

// newRequest resolves the brand and the session of a request. A missing,
// unknown or expired session is simply a signed-out request.
func (s *Server) newRequest(c fiber.Ctx) (*request, error) {
	b := s.Brands.ForHost(c.Hostname())
	r := &request{fiber: c, brand: b, copy: screens.Context{Brand: b, Copy: s.Brands.Copy(b)}}
	token := c.Cookies(s.sessionCookie())
	if token == "" {
		return r, nil
	}
	p, err := s.Auth.Authenticate(c.Context(), token)
	if errors.Is(err, auth.ErrNoSession) {
		s.clearSessionCookie(c)
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	r.principal, r.signedIn = p, true
	if s.Privacy != nil {
		// The retention job deletes accounts left unused; any signed-in
		// request is a use (written at most once a day).
		if err := s.Privacy.Touch(c.Context(), p.User.ID); err != nil {
			s.Logger.Warn("record account use", "requestId", requestID(c), "error", err.Error())
		}
	}
	r.mainSub, r.authorised = billing.MainSubscription(p.Subscriptions, b.Bundle, s.Clock.Now())
	if !r.authorised && !s.Brands.HostMapped(c.Hostname()) {
		// A host with no brand of its own follows the subscriber's plan: a
		// partner plan code (_x_, _y_) selects that partner brand.
		for _, sub := range p.Subscriptions {
			pb := s.Brands.Get(brand.FromPlanCode(sub.PlanCode))
			if main, ok := billing.MainSubscription(p.Subscriptions, pb.Bundle, s.Clock.Now()); ok && pb.Key != b.Key {
				r.brand, r.copy = pb, screens.Context{Brand: pb, Copy: s.Brands.Copy(pb)}
				r.mainSub, r.authorised = main, true
				break
			}
		}
	}
	return r, nil
}

// handleScreen answers GET /ui/screen?path=: a guard's redirect, or the
// envelope of the screen at that path.
func (s *Server) handleScreen(c fiber.Ctx) error {
	u, err := url.Parse(c.Query("path", "/"))
	if err != nil || !strings.HasPrefix(u.Path, "/") {
		return engine.Errorf(engine.CodeInvalid, "The path must be an absolute app path.")
	}
	r, err := s.newRequest(c)
	if err != nil {
		return err
	}
	r.path, r.query = strings.TrimRight(u.Path, "/"), u.Query()
	if r.path == "" {
		r.path = "/"
	}
	c.Set("Cache-Control", "private, no-cache")
	c.Set("Vary", "Cookie")
	if r.authorised && r.query.Get("unsubscription") == "true" && !strings.HasPrefix(r.path, screens.PathUnsubscribe) {
		// Any signed-in screen with ?unsubscription=true opens the flow.
		return s.sendResult(c, ui.Effects(ui.Replace(unsubscribeEntry(r.path, r.query))))
	}
	rt, ok := s.match(r.path)
	switch {
	case !ok, rt.guard == guardDevMailbox && !loopbackClient(c):
		// Any other path serves as home: the dashboard for subscribers,
		// sign-in for everyone else.
		if r.authorised {
			return s.sendResult(c, ui.Effects(ui.Replace(screens.PathDashboard)))
		}
		return s.sendResult(c, ui.Effects(ui.Replace(screens.PathSignIn)))
	case rt.guard == protected && !r.authorised:
		return s.sendResult(c, ui.Effects(ui.Replace(screens.PathSignIn)))
	case rt.guard == guestOnly && r.authorised:
		return s.sendResult(c, ui.Effects(ui.Replace(screens.PathDashboard)))
	case rt.guard == guardStaff || rt.guard == guardSupport:
		m, err := s.studioMember(c)
		if errors.Is(err, staff.ErrNoSession) {
			if r.path == screens.PathStudio {
				return s.sendScreen(c, r, route{path: rt.path, screen: func(r *request) (screens.Page, error) {
					return screens.StudioSignIn(r.copy), nil
				}})
			}
			return s.sendResult(c, ui.Effects(ui.Replace(screens.PathStudio)))
		}
		if err != nil {
			return err
		}
		var to redirect
		if err := s.staffMayOpen(r, rt, m); errors.As(err, &to) {
			return s.sendResult(c, ui.Effects(ui.Replace(string(to))))
		} else if err != nil {
			return err
		}
		r.member = m
	}
	return s.sendScreen(c, r, rt)
}

func (s *Server) match(path string) (route, bool) {
	for _, rt := range s.routes {
		if rt.path == path || (strings.HasSuffix(rt.path, "/*") && strings.HasPrefix(path, strings.TrimSuffix(rt.path, "*"))) {
			return rt, true
		}
	}
	return route{}, false
}

// screenResult answers an action with a whole screen, replacing the current
// one.
func (s *Server) screenResult(r *request, p screens.Page) (*ui.Result, error) {
	return &ui.Result{Screen: ptr(s.demoNotice(r, p).Envelope(s.meta(r)))}, nil
}

// demoNotice puts the public demo's notice on p when the site is one (the
// payment sandbox outside development, config.PublicDemo): every screen
// sent, the first one drawn into the page too, says it is a demo.
func (s *Server) demoNotice(r *request, p screens.Page) screens.Page {
	if !s.Config.PublicDemo() {
		return p
	}
	return screens.WithDemoNotice(r.copy, p)
}

func ptr[T any](v T) *T { return &v }

func (s *Server) meta(r *request) ui.Meta {
	return ui.Meta{ServerNow: ui.Timestamp(s.Clock.Now()), Brand: r.brand.UI(), CSRF: s.csrfToken(r.fiber), Version: s.Version,
		Experiments: r.experiments}
}

// sendScreen composes (or reuses) the route's page and sends it with an
// ETag, so a browser revalidating an unchanged screen gets 304, and the
// browser's CSRF token in the X-CSRF-Token header (on a 304 too).
//
// A page the route keeps (a key) is kept whole: its meta holds only the
// brand and the version, and the per-request parts travel in headers (the
// token in X-CSRF-Token, the server time in Date, from which the renderer
// takes its clock offset), so the body is the same bytes for every request
// and is compressed once per encoding (sendCachedPage). Other pages, and a
// page carrying per-request meta (meta.experiments), are composed for the
// request with serverNow and csrf in their meta as well.
func (s *Server) sendScreen(c fiber.Ctx, r *request, rt route) error {
	csrf := s.csrfToken(c)
	c.Set(csrfTokenHeader, csrf)
	key := s.pageKey(r, rt)
	enc := assets.Identity
	if key != "" {
		enc = assets.Negotiate(c.Get(fiber.HeaderAcceptEncoding))
		if page, encoded, ok := s.pages.lookup(key, enc); ok {
			return s.sendCachedPage(c, key, page, enc, encoded)
		}
	}
	p, err := rt.screen(r)
	var to redirect
	if errors.As(err, &to) {
		return s.sendResult(c, ui.Effects(ui.Replace(string(to))))
	}
	var rw redirectWith
	if errors.As(err, &rw) {
		return s.sendResult(c, ui.Effects(ui.Replace(rw.to), rw.then))
	}
	if err != nil {
		return err
	}
	env := s.demoNotice(r, p).Envelope(ui.Meta{})
	pageBody, err := env.EncodePage()
	if err != nil {
		return engine.Wrap(engine.CodeInternal, err, "")
	}
	// The trace id travels in the X-Request-Id header, not the body, so
	// that an unchanged screen keeps its ETag.
	version := s.Brands.Version()
	brandJSON, err := s.brandJSON.get(r.brand.Key, version, func() ([]byte, error) { return json.Marshal(r.brand.UI()) })
	if err != nil {
		return engine.Wrap(engine.CodeInternal, err, "")
	}
	if key != "" && len(r.experiments) == 0 {
		body, err := ui.AppendMeta(pageBody, ui.Meta{Version: s.Version}, brandJSON)
		if err != nil {
			return engine.Wrap(engine.CodeInternal, err, "")
		}
		if s.ValidateResponses {
			if err := ui.ValidateEnvelope(body); err != nil {
				return engine.Wrap(engine.CodeInternal, err, "")
			}
		}
		page := newCachedPage(body)
		s.pages.put(key, page)
		return s.sendCachedPage(c, key, page, enc, nil)
	}
	pageHash := fnv.New64a()
	pageHash.Write(pageBody)
	body, err := ui.AppendMeta(slices.Clip(pageBody), ui.Meta{ServerNow: ui.Timestamp(s.Clock.Now()),
		CSRF: csrf, Version: s.Version, Experiments: r.experiments}, brandJSON)
	if err != nil {
		return engine.Wrap(engine.CodeInternal, err, "")
	}
	if s.ValidateResponses {
		if err := ui.ValidateEnvelope(body); err != nil {
			return engine.Wrap(engine.CodeInternal, err, "")
		}
	}
	tag := etagOf(pageHash.Sum64(), r.brand.Key, version, csrf, s.Version)
	c.Set("ETag", tag)
	if match := c.Get("If-None-Match"); match != "" && strings.Contains(match, tag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set("Content-Type", "application/json")
	return c.Send(body)
}

// pageKey is the page cache's key for a route's page, or "" when the route
// keeps no page or declines this one.
func (s *Server) pageKey(r *request, rt route) string {
	if rt.key == nil {
		return ""
	}
	k := rt.key(r)
	if k == "" {
		return ""
	}
	b := make([]byte, 0, len(rt.path)+len(r.brand.Key)+len(k)+48)
	b = append(b, rt.path...)
	b = append(b, 0)
	b = append(b, r.brand.Key...)
	b = append(b, 0)
	b = strconv.AppendUint(b, s.Brands.Version(), 10)
	b = append(b, 0)
	b = strconv.AppendUint(b, s.libVersion.Load(), 10)
	b = append(b, 0)
	b = append(b, k...)
	return string(b)
}

// sendCachedPage answers with a kept page in encoding enc (encoded, when
// already made; else it is made now and kept): the same bytes and ETag for
// every request, a 304 for a matching If-None-Match. Content-Encoding is set,
// so the compress middleware leaves the body alone.
func (s *Server) sendCachedPage(c fiber.Ctx, key string, page *cachedPage, enc assets.Encoding, encoded []byte) error {
	c.Set(fiber.HeaderVary, "Cookie, Accept-Encoding")
	tag := page.tags[enc]
	c.Set(fiber.HeaderETag, tag)
	if match := c.Get(fiber.HeaderIfNoneMatch); match != "" && strings.Contains(match, tag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	body := encoded
	if body == nil {
		var err error
		if body, err = s.pages.encodedBody(key, page, enc); err != nil {
			return engine.Wrap(engine.CodeInternal, err, "")
		}
	}
	if enc != assets.Identity {
		c.Set(fiber.HeaderContentEncoding, enc.String())
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(body)
}

// etagOf names an envelope by everything in it but the server time.
func etagOf(pageHash uint64, brandKey string, brandVersion uint64, csrf, version string) string {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], pageHash)
	h.Write(b[:])
	binary.LittleEndian.PutUint64(b[:], brandVersion)
	h.Write(b[:])
	h.Write([]byte(brandKey + "\x00" + csrf + "\x00" + version))
	return `"` + strconv.FormatUint(h.Sum64(), 36) + `"`
}

func (s *Server) sendResult(c fiber.Ctx, res *ui.Result) error {
	return s.sendJSON(c, fiber.StatusOK, res, ui.ValidateResult)
}

// sendJSON encodes v and, when ValidateResponses is on, refuses to send a
// body that breaks the schema: a broken screen is a bug to see at once.
func (s *Server) sendJSON(c fiber.Ctx, status int, v any, check func([]byte) error) error {
	body, err := json.Marshal(v)
	if err != nil {
		return engine.Wrap(engine.CodeInternal, err, "")
	}
	if s.ValidateResponses {
		if err := check(body); err != nil {
			return engine.Wrap(engine.CodeInternal, err, "")
		}
	}
	c.Set("Content-Type", "application/json")
	return c.Status(status).Send(body)
}

// newsPostKey keeps only the pages of posts that exist: the "no such post"
// page answers every other path under /dashboard/news/, and caching it per
// path would let anyone fill the cache with unique paths.
func (s *Server) newsPostKey(r *request) string {
	if _, ok := s.library().NewsItem(strings.Trim(strings.TrimPrefix(r.path, screens.PathNews), "/")); !ok {
		return ""
	}
	return r.path
}

// homeKey names what the dashboard shows from the session it already has:
// the raw inputs of planState, so a request whose page is kept composes
// nothing (no offers, no formatted dates) to find it; and what the
// Analytics card shows, from the profile summary, which costs no database
// round trip while it is kept (profile.SummaryTTL). A summary that cannot be
// read keeps no page: homeScreen then reads it again and reports the error.
func (s *Server) homeKey(r *request) string {
	ins, err := s.insights(r)
	if err != nil {
		return ""
	}
	sub := r.mainSub
	b := make([]byte, 0, 160)
	for _, part := range []string{r.principal.User.Email, sub.PlanCode, sub.NextPlanCode, sub.Status, sub.PaymentMethod.Brand, sub.PaymentMethod.Last4} {
		b = append(append(b, part...), 0)
	}
	b = strconv.AppendInt(b, sub.CurrentPeriodEnd.Unix(), 10)
	b = strconv.AppendBool(append(b, 0), sub.FetchingPlans(s.Clock.Now()))
	b = strconv.AppendBool(append(b, 0), planOpen(r))
	lib := s.library()
	b = append(append(append(append(b, 0), lib.Trends.Title...), 0), lib.Hacks.Title...)
	ent := s.entitlements(r)
	for _, a := range billing.AddOns {
		b = strconv.AppendBool(append(b, 0), ent[a.Entitlement])
	}
	b = append(append(b, 0), ins.Status...)
	if e := ins.Engagement; e != nil {
		// What the card writes: the level, its label and the rate to two
		// decimals.
		b = strconv.AppendInt(append(b, 0), int64(e.Level), 10)
		b = append(append(b, 0), e.Status...)
		b = strconv.AppendFloat(append(b, 0), e.Rate, 'f', 2, 64)
	}
	return string(b)
}

// insights reads the subscriber's profile summary once per request.
func (s *Server) insights(r *request) (profile.Summary, error) {
	if !r.insightsRead {
		sum, err := s.Profiles.Summary(r.fiber.Context(), r.principal.User.ID)
		if err != nil {
			return profile.Summary{}, err
		}
		r.insights, r.insightsRead = sum, true
	}
	return r.insights, nil
}

func (s *Server) entitlements(r *request) map[billing.Entitlement]bool {
	return billing.Entitlements(r.principal.Subscriptions, r.brand.Bundle, s.Clock.Now())
}

// planOpen is whether the dashboard is asked for with My Plan open
// (screens.PathMyPlan).
func planOpen(r *request) bool { return r.query.Get("open") == screens.MyPlanOverlay }

func (s *Server) homeScreen(r *request) (screens.Page, error) {
	ins, err := s.insights(r)
	if err != nil {
		return screens.Page{}, err
	}
	h := s.planState(r)
	h.Insights, h.Engagement = ins.Status, ins.Engagement
	h.PlanOpen = planOpen(r)
	if buy := r.query.Get("buy"); billing.FamilyKnown(buy) {
		h.Buy = buy
	}
	lib := s.library()
	h.TrendTitle, h.HackTitle = lib.Trends.Title, lib.Hacks.Title
	return screens.Home(r.copy, h), nil
}
