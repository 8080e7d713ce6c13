package server

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/mail"
	"glimpse/engine/store"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// Account recovery and creation: restoring a password through an emailed
// link, the activation mail of a paid subscription with no account yet, and
// creating that account. Links in mail are built from the configured public
// origin (GLIMPSE_BASE_URL), never from the request's Host header, which a
// client chooses (the OWASP Forgot Password Cheat Sheet's host-header
// injection: https://cheatsheetseries.owasp.org/cheatsheets/Forgot_Password_Cheat_Sheet.html).

// Limits on the mail-sending actions. A client (IP) may send
// recoveryPerIP of them in a recoveryWindow, which bounds guessing of
// addresses and flooding from one place. An address is never refused: its
// mails are coalesced instead (one reset mail per resetMailWindow, one
// activation mail per activationResendWindow), so a stranger asking for
// someone's reset again and again neither floods their inbox nor locks them
// out of asking themselves.
const (
	recoveryPerIP  = 20
	recoveryWindow = 15 * time.Minute
	// resetMailWindow is how long a reset mail counts as just sent: a
	// request for the same address within it sends none (the one sent
	// holds a link valid for auth.PasswordResetLifetime).
	resetMailWindow = 5 * time.Minute
	// activationResendWindow is how long an activation mail counts as just
	// sent: within it a second request (from the form or a failed sign-in)
	// sends nothing, and the form says the mail was already sent.
	activationResendWindow = 10 * time.Minute
	// finaliseDelay keeps the spinner after a new account is set up before
	// the dashboard (the spec's post-finalisation delay).
	finaliseDelay = 3000
)

// emailRequest is the values of the restore-password and access-recovery
// forms; their screens' rules say what a valid address is (form: true).
type emailRequest struct {
	Email string `json:"email" validate:"max=254"`
}

// resetPasswordRequest is the new-password form: the password and, from the
// screen's state, the reset token (posted in the body, never in a URL).
type resetPasswordRequest struct {
	Password string `json:"password" validate:"max=1024"`
	Reset    string `json:"/reset" validate:"required,max=256"`
}

// createAccountRequest is the Create Your Account form. The subscription id
// comes from the screen's state and is checked again here; the email is the
// subscription's, whatever the body says.
type createAccountRequest struct {
	Email          string `json:"email" validate:"max=254"`
	Password       string `json:"password" validate:"max=1024"`
	SubscriptionID string `json:"/subscriptionId" validate:"max=200"`
}

// passwordRecoveryScreen is the restore-password screen. A reset link's
// token never reaches it: the renderer takes it from the link's fragment and
// posts it (session.from_url → openPasswordReset).
func (s *Server) passwordRecoveryScreen(r *request) (screens.Page, error) {
	return screens.PasswordRecovery(r.copy, screens.ResetState{}), nil
}

// accessRecoveryScreen is Access Recovery, or with ?id= Create Your Account
// for that subscription, checked in the spec's order: id, then subscription.
func (s *Server) accessRecoveryScreen(r *request) (screens.Page, error) {
	if !r.query.Has("id") {
		return screens.AccessRecovery(r.copy, ""), nil
	}
	id := strings.TrimSpace(r.query.Get("id"))
	if id == "" {
		return screens.CreateAccount(r.copy, screens.CreateAccountState{Problem: screens.CreateAccountNoID}), nil
	}
	userID := ""
	if r.signedIn {
		userID = r.principal.User.ID
	}
	sub, err := s.accounts.PendingSubscription(r.fiber.Context(), id, r.brand.Bundle, userID)
	if errors.Is(err, auth.ErrNoPendingSubscription) {
		return screens.CreateAccount(r.copy, screens.CreateAccountState{SubscriptionID: id, Problem: screens.CreateAccountNoSubscription}), nil
	}
	if err != nil {
		return screens.Page{}, err
	}
	return screens.CreateAccount(r.copy, screens.CreateAccountState{SubscriptionID: sub.ID, Email: sub.Email}), nil
}

// limitRecovery counts one mail-sending request from this client and
// refuses it over the client's limit.
func (s *Server) limitRecovery(r *request, kind string) error {
	ok, err := s.Auth.TakeRequestSlot(r.fiber.Context(), kind, "ip:"+r.fiber.IP(), recoveryPerIP, recoveryWindow)
	if err != nil {
		return err
	}
	if !ok {
		return engine.Errorf(engine.CodeRateLimited, "%s", r.copy.T("auth.tooManyRequests"))
	}
	return nil
}

// restorePassword answers the restore-password form the same way whether or
// not the address has an account ('Check your email'), so the form tells
// nobody which addresses are customers (OWASP ASVS 5.0 6.3.8; the OWASP
// Authentication Cheat Sheet's generic answer). It also takes the same time:
// both paths do the same lookup, and the work only a real account has
// (minting the token, rendering and storing the mail) runs after the answer
// is decided, detached from the request.
func (s *Server) restorePassword(r *request, in any) (*ui.Result, error) {
	req := in.(*emailRequest)
	email := auth.NormaliseEmail(req.Email)
	if err := s.limitRecovery(r, "reset"); err != nil {
		return nil, err
	}
	u, err := s.Auth.UserByEmail(r.fiber.Context(), email)
	if err != nil && !engine.IsNotFound(err) {
		return nil, err
	}
	switch {
	case err == nil && !u.Disabled:
		brandKey := r.brand.Key
		s.detach("password reset mail", func(ctx context.Context) error {
			return s.sendPasswordReset(ctx, u, brandKey)
		})
	case err != nil:
		// No account: a buyer who has not created it yet gets the
		// activation mail instead (the spec's §7), anyone else nothing.
		s.activateIfNoAccount(r, email)
	}
	return ui.Effects(ui.OpenOverlay(screens.ResetSentOverlay)), nil
}

// sendPasswordReset mints a reset for u and enqueues its mail, unless one
// went out for the address in this resetMailWindow. The mail's key is the
// token's hash, so a retry never sends a second mail for it.
func (s *Server) sendPasswordReset(ctx context.Context, u auth.User, brandKey string) error {
	first, err := s.Auth.TakeOnce(ctx, "reset-mail", u.Email, resetMailWindow)
	if err != nil || !first {
		return err
	}
	token, err := s.Auth.MintPasswordReset(ctx, u.ID)
	if err != nil {
		return err
	}
	// The token travels in the fragment: browsers never send it to a
	// server (RFC 9110 §4.2.4), so neither this server's nor a proxy's
	// access log sees it, nor does a Referer header.
	link := s.baseURL() + screens.PathPasswordRecovery + "#reset=" + url.QueryEscape(token)
	return s.Mail.Enqueue(ctx, mail.Message{Key: "password-reset:" + engine.HashToken(token), To: u.Email, Brand: brandKey,
		Template: mail.TemplatePasswordReset,
		Data:     map[string]string{"link": link, "minutes": strconv.Itoa(int(auth.PasswordResetLifetime / time.Minute))}})
}

// detach runs work that must not hold up (or show in the timing of) the
// answer. Its errors are logged.
func (s *Server) detach(what string, work func(ctx context.Context) error) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := work(ctx); err != nil {
			s.Logger.Error(what+" failed", "error", err.Error())
		}
	}()
}

func (s *Server) baseURL() string { return strings.TrimRight(s.Config.BaseURL, "/") }

// openPasswordReset answers the landing page of a reset link (the token
// posted by the renderer from the link's fragment): the new-password form
// with the token in its state, or, for a used or expired link, the email
// form with a notice so the person can ask again.
func (s *Server) openPasswordReset(r *request, token string) (*ui.Result, error) {
	err := s.Auth.CheckPasswordReset(r.fiber.Context(), token, r.fiber.IP())
	switch {
	case err == nil:
		return s.screenResult(r, screens.PasswordRecovery(r.copy, screens.ResetState{Token: token}))
	case errors.Is(err, auth.ErrResetInvalid), errors.Is(err, auth.ErrTooManyRequests):
		return s.screenResult(r, screens.PasswordRecovery(r.copy, screens.ResetState{LinkInvalid: true}))
	default:
		return nil, err
	}
}

// resetPassword sets the new password. Every session of the account ends
// (this browser's cookie too) and nobody is signed in: the person signs in
// with the new password, told so on the sign-in screen.
func (s *Server) resetPassword(r *request, in any) (*ui.Result, error) {
	req := in.(*resetPasswordRequest)
	err := s.Auth.ResetPassword(r.fiber.Context(), req.Reset, req.Password, r.fiber.IP())
	switch {
	case errors.Is(err, auth.ErrResetInvalid):
		return s.screenResult(r, screens.PasswordRecovery(r.copy, screens.ResetState{LinkInvalid: true}))
	case errors.Is(err, auth.ErrTooManyRequests):
		return nil, engine.Errorf(engine.CodeRateLimited, "%s", r.copy.T("auth.tooManyRequests"))
	case err != nil:
		return nil, err
	}
	s.clearSessionCookie(r.fiber)
	return ui.Effects(ui.Replace(screens.PathSignIn), ui.OpenOverlay(screens.PasswordChangedOverlay)), nil
}

// sendActivation answers the Access Recovery form. An address with an
// account is told so (the spec's 'already activated'); one with a paid
// subscription and no account gets the activation mail; one with neither
// gets exactly the answer of a sent mail and no mail, so the form does not
// tell a stranger which addresses bought a subscription.
func (s *Server) sendActivation(r *request, in any) (*ui.Result, error) {
	req := in.(*emailRequest)
	email := auth.NormaliseEmail(req.Email)
	if err := s.limitRecovery(r, "activation"); err != nil {
		return nil, err
	}
	ctx := r.fiber.Context()
	if _, err := s.Auth.UserByEmail(ctx, email); err == nil {
		return nil, engine.Errorf(engine.CodeConflict, "%s", r.copy.T("accessRecovery.alreadyActivated"))
	} else if !engine.IsNotFound(err) {
		return nil, err
	}
	sent, err := s.mailActivation(ctx, r, email)
	if err != nil {
		s.Logger.Error("activation mail failed", "requestId", requestID(r.fiber), "error", err.Error())
		return nil, engine.Wrap(engine.CodeUnavailable, err, r.copy.T("error.generic"))
	}
	if !sent {
		return nil, engine.Errorf(engine.CodeConflict, "%s", r.copy.T("accessRecovery.alreadySent"))
	}
	return s.screenResult(r, screens.AccessRecovery(r.copy, strings.TrimSpace(req.Email)))
}

// mailActivation enqueues the activation mail of every subscription of
// email waiting for an account on this brand. It returns false when a mail
// for the address already went out in this window. The window is claimed
// per address whether or not there is a subscription, so a repeat looks the
// same for every address.
func (s *Server) mailActivation(ctx context.Context, r *request, email string) (bool, error) {
	subs, err := s.Billing.SubscriptionsByEmail(ctx, email)
	if err != nil {
		return false, err
	}
	first, err := s.Auth.TakeOnce(ctx, "activation", r.brand.Bundle+"\x00"+email, activationResendWindow)
	if err != nil || !first {
		return false, err
	}
	window := store.Window(s.Clock.Now(), activationResendWindow)
	for _, sub := range subs {
		if !s.accounts.Awaits(sub, r.brand.Bundle) {
			continue
		}
		err := s.Mail.Enqueue(ctx, mail.Message{Key: "activation:" + sub.ID + ":" + window, To: sub.Email, Brand: r.brand.Key,
			Template: mail.TemplateActivation,
			Data: map[string]string{"email": sub.Email,
				"link": s.baseURL() + screens.PathAccessRecovery + "?id=" + url.QueryEscape(sub.ID)}})
		if err != nil {
			return false, err
		}
	}
	return true, nil
}

// activateIfNoAccount sends the activation mail when a sign-in failed, or a
// password reset was asked, for an address that has a paid subscription but
// no account yet, as the spec's sign-in and reset do. The screen says nothing different, and the work runs
// after the answer, so a failed sign-in takes the same time whether or not
// the address has an account or a subscription; an address with an account
// is left alone (its owner mistyped a password).
func (s *Server) activateIfNoAccount(r *request, email string) {
	if s.Billing == nil || s.Mail == nil { // a server wired without billing or mail
		return
	}
	// The request's context is recycled once the answer is sent: take what
	// the work needs from it now.
	rr := &request{brand: r.brand}
	email = auth.NormaliseEmail(email)
	s.detach("activation mail for an address with no account", func(ctx context.Context) error {
		if _, err := s.Auth.UserByEmail(ctx, email); !engine.IsNotFound(err) {
			return nil
		}
		_, err := s.mailActivation(ctx, rr, email)
		return err
	})
}

// createAccount creates the account of a paid subscription, links the
// subscription to it and signs in (auth.Accounts.Create).
func (s *Server) createAccount(r *request, in any) (*ui.Result, error) {
	req := in.(*createAccountRequest)
	u, token, err := s.accounts.Create(r.fiber.Context(), auth.NewAccount{SubscriptionID: req.SubscriptionID,
		Password: req.Password, Bundle: r.brand.Bundle, IP: r.fiber.IP()})
	switch {
	case errors.Is(err, auth.ErrNoSubscriptionID):
		return nil, engine.Wrap(engine.CodeInvalid, err, r.copy.T(screens.CreateAccountNoID))
	case errors.Is(err, auth.ErrNoPendingSubscription):
		return nil, engine.Wrap(engine.CodeInvalid, err, r.copy.T(screens.CreateAccountNoSubscription))
	case errors.Is(err, auth.ErrAccountEmail):
		return nil, &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"email": r.copy.T("createAccount.wrongEmail")}, Err: err}
	case errors.Is(err, auth.ErrEmailInUse):
		sub, serr := s.Billing.Subscription(r.fiber.Context(), strings.TrimSpace(req.SubscriptionID))
		if serr != nil {
			return nil, serr
		}
		return s.screenResult(r, screens.CreateAccount(r.copy, screens.CreateAccountState{
			SubscriptionID: sub.ID, Email: sub.Email, EmailInUse: true}))
	case err != nil && u.ID != "":
		// The account exists and the subscription is linked; should the
		// session still not open, sign-in is where to go on.
		s.Logger.Error("session after account creation", "requestId", requestID(r.fiber), "error", err.Error())
		return ui.Effects(ui.Replace(screens.PathSignIn)), nil
	case err != nil:
		return nil, err
	}
	if _, err := s.afterSignIn(r, token, nil); err != nil {
		return nil, err
	}
	return ui.Effects(ui.After(finaliseDelay, ui.Replace(screens.PathDashboard))), nil
}
