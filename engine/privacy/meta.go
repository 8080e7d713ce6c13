package privacy

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"glimpse/engine"
)

// Statuses of a Meta data-deletion request, as its public page shows them.
const (
	DeletionCompleted = "completed" // the connected profile's data is deleted
	DeletionNoData    = "no_data"   // nothing was held for that Instagram user
)

// deletionStatusKept is how long a deletion request's status page answers.
const deletionStatusKept = 180 * 24 * time.Hour

// DeletionStatusPath is the public page of a deletion request (?code=…).
const DeletionStatusPath = "/instagram/deletion"

// DeletionRequest is one of Meta's data-deletion requests: its code, what
// became of it and when. There is one per Instagram user: its code is a
// keyed hash of the Instagram user's id (deletionCode), so it names no user
// to anyone without the app secret.
type DeletionRequest struct {
	Code        string
	Status      string
	RequestedAt time.Time
	CompletedAt time.Time
	ExpiresAt   time.Time
}

// DeletionAnswer is what Meta's data-deletion callback answers.
type DeletionAnswer struct {
	URL              string `json:"url"`
	ConfirmationCode string `json:"confirmation_code"`
}

// errSignedRequest is the error of a signed_request refused by
// VerifySignedRequest, for the callbacks to answer.
func errSignedRequest(err error) error {
	if errors.Is(err, ErrSignedRequestStale) {
		return engine.Wrap(engine.CodeUnauthenticated, err, "The signed request is too old.")
	}
	return engine.Wrap(engine.CodeUnauthenticated, err, "The signed request could not be verified.")
}

// deletionCode is the confirmation code of the Instagram user's deletion
// requests: the HMAC-SHA256 of its app-scoped id keyed with the app secret,
// as 32 hex digits. The same user gets the same code, which is the record's
// unique key, so the store keeps one record per user whatever races; nobody without the secret can tell whose code it is or make
// another's.
func deletionCode(secret []byte, instagramUserID string) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("glimpse instagram data deletion\x00" + instagramUserID))
	return hex.EncodeToString(mac.Sum(nil)[:16])
}

// InstagramDataDeletion answers Meta's data-deletion callback: it verifies
// the signed_request and that it is fresh (VerifySignedRequest), deletes
// everything taken from the Instagram account it names (the token,
// snapshots and analyses) and keeps a status for the public page under the
// user's code (deletionCode). A replay, or another request for the same
// user while the status is kept, deletes whatever is there again and
// answers the same code and url; it makes no new record (a unique insert,
// not a read-then-write); when this request found data to delete, the
// status says completed, now.
func (s *Service) InstagramDataDeletion(ctx context.Context, signedRequest string) (DeletionAnswer, error) {
	secret := []byte(s.o.InstagramAppSecret)
	sr, err := VerifySignedRequest(signedRequest, secret, s.clock.Now())
	if err != nil {
		return DeletionAnswer{}, errSignedRequest(err)
	}
	status := DeletionNoData
	userID, err := s.o.Profiles.UserOfInstagram(ctx, sr.UserID)
	if err != nil {
		return DeletionAnswer{}, err
	}
	if userID != "" {
		if err := s.DisconnectInstagram(ctx, userID); err != nil {
			return DeletionAnswer{}, err
		}
		status = DeletionCompleted
	}
	now := s.now()
	code := deletionCode(secret, sr.UserID)
	req := DeletionRequest{Code: code, Status: status, RequestedAt: now, CompletedAt: now, ExpiresAt: now.Add(deletionStatusKept)}
	first, err := s.st.InstagramDeletions.Record(ctx, req)
	if err != nil {
		return DeletionAnswer{}, fmt.Errorf("record deletion request: %w", err)
	}
	replay := !first
	if replay && status == DeletionCompleted {
		// The user's record exists: this is a replay or a later request.
		// Only what this one deleted changes it: to completed, now.
		if err := s.st.InstagramDeletions.Complete(ctx, code, now); err != nil {
			return DeletionAnswer{}, fmt.Errorf("record deletion request: %w", err)
		}
	}
	s.o.Logger.Info("instagram data deletion request", "status", status, "replay", replay)
	return DeletionAnswer{URL: s.o.BaseURL + DeletionStatusPath + "?code=" + code, ConfirmationCode: code}, nil
}

// InstagramDeauthorize answers Meta's deauthorize callback (a fresh
// signed_request, as the data-deletion's): the person removed the app on
// Instagram, so the token is deleted at once and no more is fetched; what
// was fetched stays until they delete it or their account is deleted. An
// Instagram user nobody connected is no error.
func (s *Service) InstagramDeauthorize(ctx context.Context, signedRequest string) error {
	sr, err := VerifySignedRequest(signedRequest, []byte(s.o.InstagramAppSecret), s.clock.Now())
	if err != nil {
		return errSignedRequest(err)
	}
	userID, err := s.o.Profiles.UserOfInstagram(ctx, sr.UserID)
	if err != nil || userID == "" {
		return err
	}
	return s.o.Profiles.RevokeCredential(ctx, userID)
}

// DeletionStatus returns the status of a data-deletion request by code;
// found is false for an unknown or expired code.
func (s *Service) DeletionStatus(ctx context.Context, code string) (DeletionRequest, bool, error) {
	if code == "" || len(code) > 64 {
		return DeletionRequest{}, false, nil
	}
	r, found, err := s.st.InstagramDeletions.Get(ctx, code)
	if err != nil {
		return DeletionRequest{}, false, fmt.Errorf("deletion status: %w", err)
	}
	return r, found, nil
}

// DisconnectInstagram deletes the person's connected profile with its
// token, snapshots and analyses, and so the exports prepared before,
// which held them (remakeExports).
func (s *Service) DisconnectInstagram(ctx context.Context, userID string) error {
	if err := s.o.Profiles.Disconnect(ctx, userID); err != nil {
		return err
	}
	return s.remakeExports(ctx, userID)
}
