// Package instagram turns what Instagram gives into profile snapshots: the
// Instagram Login API (subpackage api) and the data export (subpackage
// export). It also seals access tokens for storage.
package instagram

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"glimpse/engine/analysis"
	"glimpse/engine/instagram/api"
)

// Snapshot limits: enough posts for the analysis (it looks at the latest
// 12) and top lists, and commenters of the analysed posts, within the API's
// hourly budget for one account.
const (
	snapshotPosts       = 50
	commentedPosts      = analysis.DefaultLatestN
	commentsPerPost     = 100
	snapshotCallTimeout = 2 * time.Minute
)

// Snapshot reads a profile through the API: its follower count, its latest
// posts with likes and comments, and who commented on the analysed posts.
// The API gives no follower lists, so those stay unknown (nil) and the
// analysis says which figures it cannot compute.
func Snapshot(ctx context.Context, c *api.Client, tok api.Token, now time.Time) (analysis.Snapshot, api.Profile, error) {
	ctx, cancel := context.WithTimeout(ctx, snapshotCallTimeout)
	defer cancel()
	prof, err := c.Profile(ctx, tok)
	if err != nil {
		return analysis.Snapshot{}, api.Profile{}, fmt.Errorf("read profile: %w", err)
	}
	media, err := c.Media(ctx, tok, snapshotPosts)
	if err != nil {
		return analysis.Snapshot{}, prof, fmt.Errorf("read posts: %w", err)
	}
	posts := make([]analysis.Post, 0, len(media))
	for i, m := range media {
		p := analysis.Post{ID: m.ID, TakenAt: m.Timestamp, Likes: m.LikeCount, Comments: m.CommentsCount,
			PictureURL: m.PictureURL()}
		if i < commentedPosts && m.CommentsCount > 0 {
			comments, err := c.Comments(ctx, tok, m.ID, commentsPerPost)
			if err != nil {
				return analysis.Snapshot{}, prof, fmt.Errorf("read comments: %w", err)
			}
			for _, cm := range comments {
				if cm.Username != "" && cm.Username != prof.Username {
					p.Commenters = append(p.Commenters, cm.Username)
				}
			}
		}
		posts = append(posts, p)
	}
	return analysis.Snapshot{TakenAt: now, FollowerCount: prof.FollowersCount, Posts: posts}, prof, nil
}

// Sealer encrypts access tokens before they are stored (AES-256-GCM), so a
// copy of the database does not hand out access to people's accounts. It
// seals with one key and opens with that key or any older one, so a key can
// change without cutting off the tokens stored under the old one.
type Sealer struct {
	aead  cipher.AEAD
	older []cipher.AEAD
}

// NewSealer returns a Sealer that seals with key and also opens what older
// keys sealed. Every key has 32 bytes.
func NewSealer(key []byte, older ...[]byte) (*Sealer, error) {
	aead, err := newAEAD(key)
	if err != nil {
		return nil, err
	}
	s := &Sealer{aead: aead}
	for _, k := range older {
		a, err := newAEAD(k)
		if err != nil {
			return nil, err
		}
		s.older = append(s.older, a)
	}
	return s, nil
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != 32 {
		return nil, errors.New("token sealer needs a 32-byte key")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("token sealer: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("token sealer: %w", err)
	}
	return aead, nil
}

// Seal encrypts a token.
func (s *Sealer) Seal(tok api.Token) (string, error) {
	plain, err := json.Marshal(tok)
	if err != nil {
		return "", fmt.Errorf("seal token: %w", err)
	}
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, nil)), nil
}

// Open decrypts a sealed token, with the current key or an older one.
func (s *Sealer) Open(sealed string) (api.Token, error) {
	raw, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return api.Token{}, errors.New("open token: not a sealed token")
	}
	nonce, box := raw[:s.aead.NonceSize()], raw[s.aead.NonceSize():]
	plain, err := s.aead.Open(nil, nonce, box, nil)
	for _, older := range s.older {
		if err == nil {
			break
		}
		plain, err = older.Open(nil, nonce, box, nil)
	}
	if err != nil {
		return api.Token{}, fmt.Errorf("open token: %w", err)
	}
	var tok api.Token
	if err := json.Unmarshal(plain, &tok); err != nil {
		return api.Token{}, fmt.Errorf("open token: %w", err)
	}
	return tok, nil
}
