package server

import (
	"context"
	"errors"
	"strings"
	"time"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/metrics"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// Account recovery and creation: restoring a password through an emailed
// link, the activation mail of a paid subscription with no account yet, and
// creating that account. Links in mail are built from the configured public
// origin (GLIMPSE_BASE_URL), never from the request's Host header, which a
// client chooses (the OWASP Forgot Password Cheat Sheet's host-header
// injection: https://cheatsheetseries.owasp.org/cheatsheets/Forgot_Password_Cheat_Sheet.html).

// A client (IP) may send recoveryPerIP mail-sending requests in a
// recoveryWindow, which bounds guessing of addresses and flooding from one
// place. An address is never refused: auth.Accounts coalesces its mails.
const (
	recoveryPerIP  = 20
	recoveryWindow = 15 * time.Minute
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

// createAccountRequest is the Create Your Account form. The activation key
// comes from the screen's state and is checked again here; the email is the
// subscription's, whatever the body says.
type createAccountRequest struct {
	Email    string `json:"email" validate:"max=254"`
	Password string `json:"password" validate:"max=1024"`
	Key      string `json:"/key" validate:"max=256"`
}

// passwordRecoveryScreen is the restore-password screen. A reset link's
// token never reaches it: the renderer takes it from the link's fragment and
// posts it (session.from_url → openPasswordReset).
func (s *Server) passwordRecoveryScreen(r *request) (screens.Page, error) {
	return screens.PasswordRecovery(r.copy, screens.ResetState{}), nil
}

// accessRecoveryScreen is Access Recovery, or with ?key= Create Your Account
// for the activation link's subscription (a link of old, ?id=, has no key
// and says so).
func (s *Server) accessRecoveryScreen(r *request) (screens.Page, error) {
	if !r.query.Has("key") && !r.query.Has("id") {
		return screens.AccessRecovery(r.copy, ""), nil
	}
	key := r.query.Get("key")
	userID := ""
	if r.signedIn {
		userID = r.principal.User.ID
	}
	sub, err := s.accounts.Pending(r.fiber.Context(), key, r.brand.Bundle, userID)
	if problem, ok := accountProblem(err); ok {
		return screens.CreateAccount(r.copy, screens.CreateAccountState{Key: key, Problem: problem}), nil
	}
	switch {
	case errors.Is(err, auth.ErrAccountReady):
		return screens.CreateAccount(r.copy, screens.CreateAccountState{Email: sub.Email, Ready: true}), nil
	case err != nil:
		return screens.Page{}, err
	}
	return screens.CreateAccount(r.copy, screens.CreateAccountState{Key: key, Email: sub.Email}), nil
}

// accountProblem is the copy key of why a link opens no form.
func accountProblem(err error) (string, bool) {
	switch {
	case errors.Is(err, auth.ErrNoActivationKey), errors.Is(err, auth.ErrActivationKeyInvalid):
		return screens.CreateAccountLinkInvalid, true
	case errors.Is(err, auth.ErrNoPendingSubscription):
		return screens.CreateAccountNoSubscription, true
	}
	return "", false
}

// limitRecovery counts one mail-sending request from this client and
// refuses it over the client's limit.
func (s *Server) limitRecovery(r *request, kind string) error {
	ok, err := s.Auth.TakeRequestSlot(r.fiber.Context(), kind, "ip:"+r.fiber.IP(), recoveryPerIP, recoveryWindow)
	if err != nil {
		return err
	}
	if !ok {
		s.Business.LimitHit(metrics.LimitPasswordReset)
		return engine.Errorf(engine.CodeRateLimited, "%s", r.copy.T("auth.tooManyRequests"))
	}
	return nil
}

// restorePassword answers the restore-password form the same way whether or
// not the address has an account ('Check your email'), so the form tells
// nobody which addresses are customers (OWASP ASVS 5.0 6.3.8; the OWASP
// Authentication Cheat Sheet's generic answer). It also takes the same time:
// the work (auth.Accounts.RequestPasswordReset) runs after the answer,
// detached from the request.
func (s *Server) restorePassword(r *request, in any) (*ui.Result, error) {
	req := in.(*emailRequest)
	if err := s.limitRecovery(r, "reset"); err != nil {
		return nil, err
	}
	b := auth.Brand{Key: r.brand.Key, Bundle: r.brand.Bundle}
	s.detach("password reset mail", func(ctx context.Context) error {
		return s.accounts.RequestPasswordReset(ctx, req.Email, b)
	})
	return ui.Effects(ui.OpenOverlay(screens.ResetSentOverlay)), nil
}

// detach runs work that must not hold up (or show in the timing of) the
// answer. Its errors are logged; WaitDetached waits for it.
func (s *Server) detach(what string, work func(ctx context.Context) error) {
	s.detached.Add(1)
	go func() {
		defer s.detached.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := work(ctx); err != nil {
			s.Logger.Error(what+" failed", "error", err.Error())
		}
	}()
}

// WaitDetached waits until the work detached from answers so far (the mails
// of recovery requests and failed sign-ins) has ended: for a shutdown that
// lets it finish, and for tests that look at what it did.
func (s *Server) WaitDetached() { s.detached.Wait() }

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

// sendActivation answers the Access Recovery form alike for every address,
// so the form does not tell a stranger which addresses have an account or
// bought a subscription: the activation-sent dialog, or, for a second
// request for the address within its window, 'already sent'. That window is
// claimed by this form alone and alike for every address
// (auth.Accounts.AskActivation): a reset request or a failed sign-in of an
// address with no account, which mail its activation, used to claim it, so
// only an address with no account then heard 'already sent' (#32). The mail
// goes after the answer, detached, so the answer also takes the same time;
// what applies is said in the mail: the activation link for a paid
// subscription, or, for an account, that it is active and how to sign in.
func (s *Server) sendActivation(r *request, in any) (*ui.Result, error) {
	req := in.(*emailRequest)
	if err := s.limitRecovery(r, "activation"); err != nil {
		return nil, err
	}
	b := auth.Brand{Key: r.brand.Key, Bundle: r.brand.Bundle}
	first, err := s.accounts.AskActivation(r.fiber.Context(), req.Email, b)
	if err != nil {
		return nil, err
	}
	if !first {
		return nil, engine.Errorf(engine.CodeConflict, "%s", r.copy.T("accessRecovery.alreadySent"))
	}
	email := req.Email
	s.detach("activation mail", func(ctx context.Context) error {
		_, err := s.accounts.SendActivation(ctx, email, b)
		return err
	})
	return s.screenResult(r, screens.AccessRecovery(r.copy, strings.TrimSpace(req.Email)))
}

// activateIfNoAccount sends the activation mail when a sign-in failed for
// an address that has a paid subscription but no account yet, as the
// spec's sign-in does. The screen says nothing different, and the work
// runs after the answer, so a failed sign-in takes the same time whether
// or not the address has an account or a subscription; an address with an
// account is left alone (its owner mistyped a password).
func (s *Server) activateIfNoAccount(r *request, email string) {
	if s.Billing == nil || s.Mail == nil { // a server wired without billing or mail
		return
	}
	// The request's context is recycled once the answer is sent: take what
	// the work needs from it now.
	b := auth.Brand{Key: r.brand.Key, Bundle: r.brand.Bundle}
	s.detach("activation mail for an address with no account", func(ctx context.Context) error {
		if has, err := s.accounts.HasAccount(ctx, email); err != nil || has {
			return err
		}
		_, err := s.accounts.SendActivation(ctx, email, b)
		return err
	})
}

// createAccount creates the account of a paid subscription, links the
// subscription to it and signs in (auth.Accounts.Create).
func (s *Server) createAccount(r *request, in any) (*ui.Result, error) {
	req := in.(*createAccountRequest)
	u, token, err := s.accounts.Create(s.originContext(r), auth.NewAccount{Key: req.Key,
		Password: req.Password, Bundle: r.brand.Bundle, IP: r.fiber.IP()})
	if problem, ok := accountProblem(err); ok {
		return nil, engine.Wrap(engine.CodeInvalid, err, r.copy.T(problem))
	}
	switch {
	case errors.Is(err, auth.ErrAccountReady):
		return s.screenResult(r, screens.CreateAccount(r.copy, screens.CreateAccountState{Ready: true}))
	case errors.Is(err, auth.ErrAccountEmail):
		return nil, &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"email": r.copy.T("createAccount.wrongEmail")}, Err: err}
	case errors.Is(err, auth.ErrEmailInUse):
		sub, serr := s.accounts.Pending(r.fiber.Context(), req.Key, r.brand.Bundle, "")
		if serr != nil {
			return nil, serr
		}
		return s.screenResult(r, screens.CreateAccount(r.copy, screens.CreateAccountState{
			Key: req.Key, Email: sub.Email, EmailInUse: true}))
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
