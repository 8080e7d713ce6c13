package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"glimpse/engine"
)

// Password resets. A reset link carries a 256-bit random token; the database
// keeps only its SHA-256 as the id of a Link, so a copy of the database holds
// nothing that opens an account. A token works once: using it takes the link
// (Links.Take), and of two concurrent uses only the one that took it goes
// on. The
// lifetime is 30 minutes, inside the 30 to 60 minutes the OWASP Forgot
// Password Cheat Sheet suggests for reset links
// (https://cheatsheetseries.owasp.org/cheatsheets/Forgot_Password_Cheat_Sheet.html).
// A reset signs every session of the account out and does not sign in.

// PasswordResetLifetime is how long a reset link works.
const PasswordResetLifetime = 30 * time.Minute

// ErrResetInvalid means a reset token is unknown, used or expired.
var ErrResetInvalid = engine.Errorf(engine.CodeInvalid, "This link has expired or was already used.")

// MintPasswordReset stores a new reset for the user and returns its token,
// which is never stored.
func (s *Service) MintPasswordReset(ctx context.Context, userID string) (string, error) {
	u, err := s.userByID(ctx, userID)
	if err != nil {
		return "", fmt.Errorf("mint password reset: %w", err)
	}
	token := engine.NewToken()
	link := Link{ID: engine.HashToken(token), Kind: PasswordResetKind, Owner: userID,
		ExpiresAt: s.clock.Now().Add(PasswordResetLifetime), Epoch: u.SessionEpoch}
	if err := s.links.Insert(ctx, link); err != nil {
		return "", fmt.Errorf("mint password reset: %w", err)
	}
	return token, nil
}

// findReset reads the live reset of token without using it up, with its
// account. A token that matches nothing counts against the client's per-IP
// limit like a wrong password (it can only be a guess or an old link); a
// known one does not. A link of an epoch the account has left (a reset or a
// sign-out everywhere since) is dead: it is forgotten here, which also
// completes a reset stopped after it set the password.
func (s *Service) findReset(ctx context.Context, token, ip string) (Link, User, error) {
	if !s.limiter.reserveIP(ip) {
		return Link{}, User{}, ErrTooManyRequests
	}
	link, err := s.links.Find(ctx, PasswordResetKind, engine.HashToken(token))
	if errors.Is(err, ErrLinkNotFound) {
		return Link{}, User{}, ErrResetInvalid
	}
	s.limiter.releaseIP(ip)
	if err != nil {
		return Link{}, User{}, fmt.Errorf("find password reset: %w", err)
	}
	if !link.LiveAt(s.clock.Now()) {
		return Link{}, User{}, ErrResetInvalid
	}
	u, err := s.userByID(ctx, link.Owner)
	if err != nil {
		return Link{}, User{}, ErrResetInvalid
	}
	if u.SessionEpoch != link.Epoch {
		if err := s.forgetReset(context.WithoutCancel(ctx), link, u); err != nil {
			return Link{}, User{}, err
		}
		return Link{}, User{}, ErrResetInvalid // the account was reset since
	}
	return link, u, nil
}

// CheckPasswordReset reports whether token is a live reset (ErrResetInvalid
// when not), without using it up: the landing page asks before it shows the
// new-password form.
func (s *Service) CheckPasswordReset(ctx context.Context, token, ip string) error {
	_, _, err := s.findReset(ctx, token, ip)
	return err
}

// ResetPassword sets the password of the account token was minted for. The
// new password is vetted (the breached-password check) and hashed before the
// link is used, so a refused password leaves the link working. Then one
// conditional write sets the hash and moves the account's epoch on, only
// from the epoch the link was made in: of resets sent together exactly one
// wins, and the move ends every session and every other reset link of the
// account. Last, the link and the address's reset-mail window are
// forgotten; stopped before that, the link is dead (its epoch is gone) and
// its next use forgets them. It does not sign in.
func (s *Service) ResetPassword(ctx context.Context, token, password, ip string) error {
	link, u, err := s.findReset(ctx, token, ip)
	if err != nil {
		return err
	}
	if s.passwordCheck != nil {
		if err := s.passwordCheck(ctx, password); err != nil {
			return err
		}
	}
	hash, err := s.hasher.Hash(ctx, password)
	if err != nil {
		return fmt.Errorf("reset password: %w", err)
	}
	won, err := s.users.ResetPassword(ctx, u.ID, link.Epoch, hash)
	if err != nil {
		return fmt.Errorf("reset password: %w", err)
	}
	if !won {
		return ErrResetInvalid // another reset, or a sign-out everywhere, came first
	}
	s.cache.DropWhere(func(e sessionEntry) bool { return e.user.ID == u.ID })
	return s.forgetReset(context.WithoutCancel(ctx), link, u)
}

// forgetReset deletes a used or dead reset link and gives back the
// address's reset-mail window: the mails were coalesced while a link was
// out, and with it gone the owner may ask for another at once. Either step
// may already be done.
func (s *Service) forgetReset(ctx context.Context, link Link, u User) error {
	if err := s.releaseOnce(ctx, "reset-mail", u.Email, ResetMailWindow); err != nil {
		return err
	}
	if _, err := s.links.Take(ctx, PasswordResetKind, link.ID); err != nil && !errors.Is(err, ErrLinkNotFound) {
		return fmt.Errorf("forget password reset: %w", err)
	}
	return nil
}

// SignOutAll ends every session and reset link of a user. This instance
// forgets them at once; other instances within the session cache's TTL
// (5 seconds).
func (s *Service) SignOutAll(ctx context.Context, userID string) error {
	// One write to the account: the sessions and reset links of the old
	// epoch are refused from now on and swept when they expire.
	if err := s.users.EndSessions(ctx, userID); err != nil {
		return fmt.Errorf("sign out all sessions: %w", err)
	}
	s.cache.DropWhere(func(e sessionEntry) bool { return e.user.ID == userID })
	return nil
}

// OpenSession opens a session for a user who has just proved who they are
// another way (an account just created from a paid subscription). It
// refuses like SignIn when nothing authorises the person on bundle.
func (s *Service) OpenSession(ctx context.Context, u User, bundle string) (string, error) {
	s.subs.Drop(u.ID)
	return s.openSession(ctx, u, bundle)
}

// TakeRequestSlot counts one request of kind by key (an address, an IP) in
// the current window of length window and reports false once limit are
// taken. The counter is one of Counters, so it holds across instances and
// concurrent requests. Key is hashed: addresses are not stored.
func (s *Service) TakeRequestSlot(ctx context.Context, kind, key string, limit int, window time.Duration) (bool, error) {
	now := s.clock.Now()
	id := "limit:" + kind + ":" + engine.HashToken(key) + ":" + windowOf(now, window)
	ok, err := s.counters.Take(ctx, id, limit, now.Add(window))
	if err != nil {
		return false, fmt.Errorf("count %s request: %w", kind, err)
	}
	return ok, nil
}

// TakeOnce claims name for the current window of length window: the first
// caller in a window gets true, every later one false (a counter of one, so
// concurrent callers too). Name is hashed like TakeRequestSlot's key.
func (s *Service) TakeOnce(ctx context.Context, kind, name string, window time.Duration) (bool, error) {
	now := s.clock.Now()
	ok, err := s.counters.Take(ctx, onceID(kind, name, now, window), 1, now.Add(window))
	if err != nil {
		return false, fmt.Errorf("claim %s: %w", kind, err)
	}
	return ok, nil
}

// onceID is the counter of name for kind in the window of length window
// that now falls in (TakeOnce, releaseOnce).
func onceID(kind, name string, now time.Time, window time.Duration) string {
	return "once:" + kind + ":" + engine.HashToken(name) + ":" + windowOf(now, window)
}

// releaseOnce gives back name's claim of the current window (TakeOnce), so
// the next caller in the window gets true again.
func (s *Service) releaseOnce(ctx context.Context, kind, name string, window time.Duration) error {
	if err := s.counters.Reset(ctx, onceID(kind, name, s.clock.Now(), window)); err != nil {
		return fmt.Errorf("release %s: %w", kind, err)
	}
	return nil
}

// VerifyPassword checks an email and password like SignIn (the same limits,
// the same time for an unknown address) without opening a session: account
// creation uses it to recognise the owner of an address submitting again.
func (s *Service) VerifyPassword(ctx context.Context, email, password, ip string) (User, error) {
	email = NormaliseEmail(email)
	attempt, err := s.limiter.Reserve(ctx, email, ip)
	if err != nil {
		return User{}, err
	}
	u, err := s.UserByEmail(ctx, email)
	if err != nil && !engine.IsNotFound(err) {
		attempt.Abandon(ctx)
		return User{}, fmt.Errorf("verify password: %w", err)
	}
	ok, err := s.hasher.Verify(ctx, u.PasswordHash, password)
	if err != nil {
		attempt.Abandon(ctx)
		return User{}, fmt.Errorf("verify password: %w", err)
	}
	if !ok {
		return User{}, ErrInvalidCredential
	}
	if err := attempt.Succeeded(ctx); err != nil {
		return User{}, err
	}
	if u.Disabled {
		return User{}, ErrUserDisabled
	}
	return u, nil
}
