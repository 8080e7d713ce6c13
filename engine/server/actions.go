package server

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/metrics"
	"glimpse/engine/tracking"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// noValues is the request of actions that take none.
func noValues() any { return &struct{}{} }

// signInRequest is the sign-in form's values. What a valid email and
// password look like is the sign-in screen's rules (form: true); the tags
// only bound what the server reads.
type signInRequest struct {
	Email    string `json:"email" validate:"max=254"`
	Password string `json:"password" validate:"max=1024"`
}

type fromURLRequest struct {
	Creds string `json:"creds" validate:"required_without_all=Login Reset,max=4096"`
	Login string `json:"login" validate:"required_without_all=Creds Reset,max=256"`
	// Reset is a password-reset token, from the fragment of a reset link
	// (it opens the new-password form, it signs nobody in).
	Reset string `json:"reset" validate:"required_without_all=Creds Login,max=256"`
}

// trackRequest is an analytics event. Every accepted one writes a log line,
// so its size is bounded here (a few props of short keys and scalar values)
// and its rate per client in track.
type trackRequest struct {
	Event string         `json:"event" validate:"required,max=100,printascii"`
	Props map[string]any `json:"props" validate:"max=20,dive,keys,min=1,max=64,printascii,endkeys"`
}

// maxTrackValue bounds a string prop of an event.
const maxTrackValue = 256

// Each client (IP) may send a burst of trackBurst events, then one every
// trackEvery; more is dropped. Screens send a handful per visit.
const (
	trackBurst = 30
	trackEvery = time.Second
)

// actionBody is the body every action receives (see engine/ui/protocol.md).
type actionBody struct {
	Values json.RawMessage `json:"values"`
	Path   string          `json:"path"`
}

func (s *Server) handleAction(c fiber.Ctx) error {
	spec, ok := s.actions[c.Params("name")]
	if !ok {
		return engine.Errorf(engine.CodeNotFound, "Unknown action.")
	}
	r, err := s.newRequest(c)
	if err != nil {
		return err
	}
	if spec.staff != "" {
		if err := s.admitStaff(r, spec.staff); err != nil {
			return err
		}
	}
	if spec.upload != nil {
		res, err := spec.upload(r, requestBody(c))
		if err != nil {
			return err
		}
		return s.sendAny(c, res)
	}
	in := spec.newRequest()
	var body actionBody
	raw, err := readActionBody(c)
	if err != nil {
		return err
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &body); err != nil {
			return engine.Wrap(engine.CodeInvalid, err, r.copy.T("error.unreadable"))
		}
	}
	// The screen the action was taken on, for actions that read its query
	// (the public cancel page reads its link's value).
	if u, err := url.Parse(body.Path); err == nil && strings.HasPrefix(u.Path, "/") {
		r.path, r.query = strings.TrimRight(u.Path, "/"), u.Query()
	}
	if len(body.Values) > 0 && string(body.Values) != "null" {
		if err := json.Unmarshal(body.Values, in); err != nil {
			return engine.Wrap(engine.CodeInvalid, err, r.copy.T("error.unreadable"))
		}
	}
	if spec.form {
		if err := s.checkForm(r, c.Params("name"), body); err != nil {
			return err
		}
	}
	if err := s.validate.Struct(in); err != nil {
		return fieldErrors(r, err)
	}
	res, err := spec.handle(r, in)
	if err != nil {
		return err
	}
	return s.sendAny(c, res)
}

// sendAny sends a result, or the whole screen it carries.
func (s *Server) sendAny(c fiber.Ctx, res *ui.Result) error {
	if res.Screen != nil {
		body, err := res.Screen.Encode()
		if err != nil {
			return engine.Wrap(engine.CodeInternal, err, "")
		}
		if s.ValidateResponses {
			if err := ui.ValidateEnvelope(body); err != nil {
				return engine.Wrap(engine.CodeInternal, err, "")
			}
		}
		c.Set("Content-Type", "application/json")
		return c.Send(body)
	}
	return s.sendResult(c, res)
}

// fieldErrors turns validator errors into per-input errors; the inputs' ids
// are the fields' JSON names. A form's own rules run first (checkForm) with
// the screen's messages, so what fails here is a bound no screen declares (a
// type, a size): a request no person typing into the screen sends, which
// gets a plain message (error.invalidValue) rather than a copy key of its
// own; the failed tag is in the logged error.
func fieldErrors(r *request, err error) error {
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return engine.Wrap(engine.CodeInvalid, err, r.copy.T("error.unreadable"))
	}
	fields := map[string]string{}
	for _, fe := range verrs {
		if _, seen := fields[jsonName(fe)]; !seen {
			fields[jsonName(fe)] = r.copy.T("error.invalidValue")
		}
	}
	return &engine.Error{Code: engine.CodeInvalid, Fields: fields, Err: err}
}

// jsonName is the input id a field error belongs to: the request field's
// JSON name, which validator reports once the tag-name function is set (New).
func jsonName(fe validator.FieldError) string { return fe.Field() }

func (s *Server) signIn(r *request, in any) (*ui.Result, error) {
	req := in.(*signInRequest)
	token, err := s.Auth.SignIn(s.originContext(r), req.Email, req.Password, r.fiber.IP(), r.brand.Bundle)
	if errors.Is(err, auth.ErrInvalidCredential) {
		s.activateIfNoAccount(r, req.Email)
	}
	return s.afterSignIn(r, token, err)
}

func (s *Server) signInFromURL(r *request, in any) (*ui.Result, error) {
	req := in.(*fromURLRequest)
	if req.Reset != "" {
		return s.openPasswordReset(r, req.Reset)
	}
	var token string
	var err error
	if req.Login != "" {
		token, err = s.Auth.ConsumeLoginLink(s.originContext(r), req.Login, r.fiber.IP(), r.brand.Bundle)
	} else {
		email, password, decodeErr := auth.DecodeCreds(req.Creds)
		if decodeErr != nil {
			err = auth.ErrInvalidCredential
		} else {
			token, err = s.Auth.SignIn(s.originContext(r), email, password, r.fiber.IP(), r.brand.Bundle)
		}
	}
	if err != nil {
		// The loader gives way to sign-in, whatever went wrong; the reason
		// is logged, never the secret.
		s.Logger.Info("sign-in from link failed", "requestId", requestID(r.fiber), "error", err.Error())
		if errors.Is(err, auth.ErrNoSubscription) {
			return ui.Effects(ui.Replace(screens.PathSignIn), ui.OpenOverlay(screens.NoSubscriptionOverlay)), nil
		}
		if errors.Is(err, auth.ErrSubscriptionExpired) {
			return ui.Effects(ui.Replace(screens.PathSignIn), ui.OpenOverlay(screens.SubscriptionExpiredOverlay)), nil
		}
		if engine.ErrorCode(err) == engine.CodeInternal {
			return nil, err
		}
		return ui.Effects(ui.Replace(screens.PathSignIn)), nil
	}
	return s.afterSignIn(r, token, nil)
}

// afterSignIn rotates the session cookie and the CSRF token and sends the
// person home, or back where sign-in's ?next= says (afterSignInGo), or
// maps a sign-in failure to what the form shows.
func (s *Server) afterSignIn(r *request, token string, err error) (*ui.Result, error) {
	s.countSignIn(err)
	switch {
	case errors.Is(err, auth.ErrNoSubscription):
		return ui.Effects(ui.OpenOverlay(screens.NoSubscriptionOverlay)), nil
	case errors.Is(err, auth.ErrSubscriptionExpired):
		return ui.Effects(ui.OpenOverlay(screens.SubscriptionExpiredOverlay)), nil
	case errors.Is(err, auth.ErrInvalidCredential):
		return nil, engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("auth.invalidCredential"))
	case errors.Is(err, auth.ErrTooManyRequests):
		return nil, engine.Errorf(engine.CodeRateLimited, "%s", r.copy.T("auth.tooManyRequests"))
	case errors.Is(err, auth.ErrUserDisabled):
		return nil, engine.Errorf(engine.CodeForbidden, "%s", r.copy.T("auth.userDisabled"))
	case errors.Is(err, auth.ErrLinkInvalid):
		return nil, engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("auth.linkInvalid"))
	case err != nil:
		return nil, err
	}
	// The old session, if any, ends: a sign-in always gets a fresh token.
	if old := r.fiber.Cookies(s.sessionCookie()); old != "" {
		if err := s.Auth.SignOut(r.fiber.Context(), old); err != nil {
			return nil, err
		}
	}
	r.fiber.Cookie(&fiber.Cookie{Name: s.sessionCookie(), Value: token, Path: "/", HTTPOnly: true,
		Secure: s.Config.SecureCookies(), SameSite: fiber.CookieSameSiteLaxMode,
		MaxAge: int(s.Config.SessionLifetime / time.Second)})
	s.rotateCSRF(r.fiber)
	return s.afterSignInGo(r), nil
}

func (s *Server) signOut(r *request, _ any) (*ui.Result, error) {
	if err := s.Auth.SignOut(r.fiber.Context(), r.fiber.Cookies(s.sessionCookie())); err != nil {
		return nil, err
	}
	s.clearSessionCookie(r.fiber)
	return ui.Effects(ui.Replace(screens.PathSignIn)), nil
}

func (s *Server) clearSessionCookie(c fiber.Ctx) {
	c.Cookie(&fiber.Cookie{Name: s.sessionCookie(), Value: "", Path: "/", HTTPOnly: true,
		Secure: s.Config.SecureCookies(), SameSite: fiber.CookieSameSiteLaxMode, MaxAge: -1,
		Expires: time.Unix(0, 0)})
}

// track records a product analytics event as a structured log line, tagged
// with the brand and (when signed in) the user id, never the email. Props are
// checked (scalars, short strings) but never logged: they come from the
// client, and a line per event is only affordable when it is small. Events
// over a client's rate are dropped without a line; analytics is sampled
// rather than letting one client fill the disk.
func (s *Server) track(r *request, in any) (*ui.Result, error) {
	req := in.(*trackRequest)
	for key, v := range req.Props {
		switch v := v.(type) {
		case string:
			if len(v) > maxTrackValue {
				return nil, engine.Errorf(engine.CodeInvalid, "The event property %q is too long.", key)
			}
		case float64, bool, nil:
		default:
			return nil, engine.Errorf(engine.CodeInvalid, "The event property %q must be a string, number or boolean.", key)
		}
	}
	if !s.trackLimit.allow(r.fiber.IP()) {
		s.Business.LimitHit(metrics.LimitEvents)
		return &ui.Result{}, nil
	}
	ua := r.fiber.Get("User-Agent")
	if len(ua) > maxTrackValue {
		ua = ua[:maxTrackValue]
	}
	attrs := []any{"event", req.Event, "props", len(req.Props), "brand", r.brand.Key,
		"requestId", requestID(r.fiber), "userAgent", ua}
	if r.signedIn {
		attrs = append(attrs, "userId", r.principal.User.ID)
	}
	s.Logger.Info("event", attrs...)
	if s.Events != nil {
		e := tracking.Event{Name: req.Event, Props: req.Props, Brand: r.brand.Key, Host: r.fiber.Hostname(), UserAgent: ua}
		if r.signedIn {
			e.UserID, e.SubscriptionID = r.principal.User.ID, r.mainSub.ID
		}
		if err := s.Events.Record(r.fiber.Context(), e); err != nil {
			// Analytics never fails the person's request.
			s.Logger.Warn("record event", "requestId", requestID(r.fiber), "error", err)
		}
	}
	return &ui.Result{}, nil
}
