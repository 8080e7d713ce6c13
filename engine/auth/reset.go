package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine"
	"glimpse/engine/store"
)

// Password resets. A reset link carries a 256-bit random token; the database
// keeps only its SHA-256 as the `_id` of a password_resets document, so a
// copy of the database holds nothing that opens an account. A token works
// once: using it deletes its document by `_id`, and of two concurrent uses
// only the one that sees deletedCount == 1 goes on (a delete by `_id` has one
// winner on the embedded FerretDB as on MongoDB, docs/store.md §1). The
// lifetime is 30 minutes, inside the 30 to 60 minutes the OWASP Forgot
// Password Cheat Sheet suggests for reset links
// (https://cheatsheetseries.owasp.org/cheatsheets/Forgot_Password_Cheat_Sheet.html).
// A reset signs every session of the account out and does not sign in.

// PasswordResetsCollection holds the hashed reset tokens.
const PasswordResetsCollection = "password_resets"

// PasswordResetLifetime is how long a reset link works.
const PasswordResetLifetime = 30 * time.Minute

// ErrResetInvalid means a reset token is unknown, used or expired.
var ErrResetInvalid = engine.Errorf(engine.CodeInvalid, "This link has expired or was already used.")

type passwordReset struct {
	ID        string    `bson:"_id"`
	UserID    string    `bson:"userId"`
	ExpiresAt time.Time `bson:"expiresAt"`
	// Epoch is the account's SessionEpoch when the link was made; a reset
	// (or any SignOutAll) since ends the link.
	Epoch int `bson:"epoch,omitempty"`
}

// MintPasswordReset stores a new reset for the user and returns its token,
// which is never stored.
func (s *Service) MintPasswordReset(ctx context.Context, userID string) (string, error) {
	u, err := s.userByID(ctx, userID)
	if err != nil {
		return "", fmt.Errorf("mint password reset: %w", err)
	}
	token := engine.NewToken()
	now := s.clock.Now()
	doc := passwordReset{ID: engine.HashToken(token), UserID: userID, ExpiresAt: now.Add(PasswordResetLifetime),
		Epoch: u.SessionEpoch}
	if err := s.listLink(ctx, resetOwner(userID), doc.ID, now); err != nil {
		return "", fmt.Errorf("mint password reset: %w", err)
	}
	if _, err := s.db.Collection(PasswordResetsCollection).InsertOne(ctx, doc); err != nil {
		return "", fmt.Errorf("mint password reset: %w", err)
	}
	return token, nil
}

// findReset reads the live reset of token without using it up. A token that
// matches nothing counts against the client's per-IP limit like a wrong
// password (it can only be a guess or an old link); a known one does not.
func (s *Service) findReset(ctx context.Context, token, ip string) (passwordReset, error) {
	if !s.limiter.reserveIP(ip) {
		return passwordReset{}, ErrTooManyRequests
	}
	var doc passwordReset
	err := s.db.Collection(PasswordResetsCollection).FindOne(ctx, bson.M{"_id": engine.HashToken(token)}).Decode(&doc)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return passwordReset{}, ErrResetInvalid
	}
	s.limiter.releaseIP(ip)
	if err != nil {
		return passwordReset{}, fmt.Errorf("find password reset: %w", err)
	}
	if !s.clock.Now().Before(doc.ExpiresAt) {
		return passwordReset{}, ErrResetInvalid
	}
	u, err := s.userByID(ctx, doc.UserID)
	if err != nil || u.SessionEpoch != doc.Epoch {
		return passwordReset{}, ErrResetInvalid // the account was reset since
	}
	return doc, nil
}

// CheckPasswordReset reports whether token is a live reset (ErrResetInvalid
// when not), without using it up: the landing page asks before it shows the
// new-password form.
func (s *Service) CheckPasswordReset(ctx context.Context, token, ip string) error {
	_, err := s.findReset(ctx, token, ip)
	return err
}

// ResetPassword sets the password of the account token was minted for. The
// new password is vetted (the breached-password check) and hashed before the
// token is used up, so a refused password leaves the link working; then the
// token is consumed (exactly one concurrent caller wins), the hash written
// and every session of the account ended. It does not sign in.
func (s *Service) ResetPassword(ctx context.Context, token, password, ip string) error {
	doc, err := s.findReset(ctx, token, ip)
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
	res, err := s.db.Collection(PasswordResetsCollection).DeleteOne(ctx, bson.M{"_id": doc.ID})
	if err != nil {
		return fmt.Errorf("consume password reset: %w", err)
	}
	if res.DeletedCount != 1 {
		return ErrResetInvalid // another request used it first
	}
	// Nothing else may still use the old password: the hash is replaced
	// unconditionally (last writer wins, which is right for a reset), and
	// the remaining reset links of the account end with its sessions
	// (SignOutAll moves the account's epoch on).
	ctx = context.WithoutCancel(ctx)
	if _, err := s.db.Collection(UsersCollection).UpdateOne(ctx, bson.M{"_id": doc.UserID},
		bson.M{"$set": bson.M{"passwordHash": hash}}); err != nil {
		return fmt.Errorf("reset password: %w", err)
	}
	// The address's reset mails were coalesced while a link was out; with
	// it used, the owner may ask for another at once.
	if u, err := s.userByID(ctx, doc.UserID); err == nil {
		if err := s.releaseOnce(ctx, "reset-mail", u.Email, ResetMailWindow); err != nil {
			return err
		}
	}
	return s.SignOutAll(ctx, doc.UserID)
}

// SignOutAll ends every session and reset link of a user. This instance
// forgets them at once; other instances within the session cache's TTL
// (5 seconds).
func (s *Service) SignOutAll(ctx context.Context, userID string) error {
	// One write by _id: the sessions and reset links of the old epoch are
	// refused from now on and swept when they expire. Concurrent calls may
	// lose an increment ($inc is not atomic on the embedded store), but
	// every one of them moves the epoch past the old sessions'.
	if _, err := s.db.Collection(UsersCollection).UpdateOne(ctx, bson.M{"_id": userID},
		bson.M{"$inc": bson.M{"sessionEpoch": 1}}); err != nil {
		return fmt.Errorf("sign out all sessions: %w", err)
	}
	s.sessions.DropWhere(func(e sessionEntry) bool { return e.user.ID == userID })
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
// taken. The counter is store.Claims slots, so it holds across instances
// and concurrent requests (docs/store.md §2). Key is hashed: addresses do
// not appear in the claims collection.
func (s *Service) TakeRequestSlot(ctx context.Context, kind, key string, limit int, window time.Duration) (bool, error) {
	now := s.clock.Now()
	id := "limit:" + kind + ":" + engine.HashToken(key) + ":" + store.Window(now, window)
	ok, err := store.NewClaims(s.db).TakeSlot(ctx, id, limit, now.Add(window))
	if err != nil {
		return false, fmt.Errorf("count %s request: %w", kind, err)
	}
	return ok, nil
}

// TakeOnce claims name for the current window of length window: the first
// caller in a window gets true, every later one false (a unique insert, so
// concurrent callers too). Name is hashed like TakeRequestSlot's key.
func (s *Service) TakeOnce(ctx context.Context, kind, name string, window time.Duration) (bool, error) {
	now := s.clock.Now()
	id := onceID(kind, name, now, window)
	ok, err := store.NewClaims(s.db).Take(ctx, id, "", now.Add(window))
	if err != nil {
		return false, fmt.Errorf("claim %s: %w", kind, err)
	}
	return ok, nil
}

// onceID is the claim of name for kind in the window of length window that
// now falls in (TakeOnce, releaseOnce).
func onceID(kind, name string, now time.Time, window time.Duration) string {
	return "once:" + kind + ":" + engine.HashToken(name) + ":" + store.Window(now, window)
}

// releaseOnce gives back name's claim of the current window (TakeOnce), so
// the next caller in the window gets true again.
func (s *Service) releaseOnce(ctx context.Context, kind, name string, window time.Duration) error {
	id := onceID(kind, name, s.clock.Now(), window)
	if err := store.NewClaims(s.db).Release(ctx, id); err != nil {
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
