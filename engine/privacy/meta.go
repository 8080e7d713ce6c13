package privacy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

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
// became of it and when. It names no user.
type DeletionRequest struct {
	Code        string    `bson:"_id"`
	Status      string    `bson:"status"`
	RequestedAt time.Time `bson:"requestedAt"`
	CompletedAt time.Time `bson:"completedAt"`
	ExpiresAt   time.Time `bson:"expiresAt"`
}

// DeletionAnswer is what Meta's data-deletion callback answers.
type DeletionAnswer struct {
	URL              string `json:"url"`
	ConfirmationCode string `json:"confirmation_code"`
}

// InstagramDataDeletion answers Meta's data-deletion callback: it verifies
// the signed_request, deletes everything taken from the Instagram account
// it names (the token, snapshots and analyses) and keeps a status under a
// new random code for the public page.
func (s *Service) InstagramDataDeletion(ctx context.Context, signedRequest string) (DeletionAnswer, error) {
	sr, err := ParseSignedRequest(signedRequest, []byte(s.o.InstagramAppSecret))
	if err != nil {
		return DeletionAnswer{}, engine.Wrap(engine.CodeUnauthenticated, err, "The signed request could not be verified.")
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
	code := engine.NewID()
	req := DeletionRequest{Code: code, Status: status, RequestedAt: now, CompletedAt: now, ExpiresAt: now.Add(deletionStatusKept)}
	if _, err := s.db.Collection(InstagramDeletionsCollection).InsertOne(ctx, req); err != nil {
		return DeletionAnswer{}, fmt.Errorf("record deletion request: %w", err)
	}
	s.o.Logger.Info("instagram data deletion request", "status", status)
	return DeletionAnswer{URL: s.o.BaseURL + DeletionStatusPath + "?code=" + code, ConfirmationCode: code}, nil
}

// InstagramDeauthorize answers Meta's deauthorize callback: the person
// removed the app on Instagram, so the token is deleted at once and no
// more is fetched; what was fetched stays until they delete it or their
// account is deleted. An Instagram user nobody connected is no error.
func (s *Service) InstagramDeauthorize(ctx context.Context, signedRequest string) error {
	sr, err := ParseSignedRequest(signedRequest, []byte(s.o.InstagramAppSecret))
	if err != nil {
		return engine.Wrap(engine.CodeUnauthenticated, err, "The signed request could not be verified.")
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
	var r DeletionRequest
	err := s.db.Collection(InstagramDeletionsCollection).FindOne(ctx, bson.M{"_id": code}).Decode(&r)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return DeletionRequest{}, false, nil
	}
	if err != nil {
		return DeletionRequest{}, false, fmt.Errorf("deletion status: %w", err)
	}
	return r, true, nil
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
