package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// MaxPages caps the pages one Media or Comments call follows, so an API that
// keeps answering with a next link (or a bug of ours) cannot loop forever
// (docs/instagram.md §3.7: "cap the page count per job").
const MaxPages = 25

// pageSize is the limit asked per page (docs/instagram.md §3.7).
const pageSize = 50

// Profile is the connected account (GET /me, docs/instagram.md §3.3).
type Profile struct {
	// ID is the app-scoped user ID; UserID is the professional account ID
	// webhooks use. Both are numeric strings.
	ID, UserID string
	Username   string
	Name       string
	// AccountType is BUSINESS or MEDIA_CREATOR, upper-cased here because the
	// casing is unverified (docs/instagram.md §3.3).
	AccountType       string
	MediaCount        int
	FollowersCount    int
	FollowsCount      int
	ProfilePictureURL string
}

// Media is one post (docs/instagram.md §3.4).
type Media struct {
	ID      string
	Caption string
	// MediaType is IMAGE, VIDEO or CAROUSEL_ALBUM; ProductType is AD, FEED,
	// STORY or REELS.
	MediaType, ProductType string
	// MediaURL is a signed CDN address that expires; it is empty for
	// copyrighted or flagged media. ThumbnailURL is set for videos only.
	MediaURL, ThumbnailURL string
	Permalink              string
	Timestamp              time.Time
	LikeCount              int
	// LikesHidden reports that like_count was absent: the owner hid the
	// like count, so LikeCount is 0 for want of a number, not a count.
	LikesHidden bool
	// CommentsCount includes replies (docs/instagram.md §3.4).
	CommentsCount int
}

// PictureURL is the image to show for the post: the thumbnail of a video,
// otherwise the media itself; empty when Instagram withheld both.
func (m Media) PictureURL() string {
	if m.MediaType == "VIDEO" && m.ThumbnailURL != "" {
		return m.ThumbnailURL
	}
	return m.MediaURL
}

// Comment is one comment on a post (docs/instagram.md §3.5).
type Comment struct {
	ID string
	// Username is the commenter's; empty when the token lacks
	// instagram_business_manage_comments (required for it since 27 Aug 2024).
	Username string
	// UserID is the commenter's Instagram-scoped ID (from.id).
	UserID    string
	Text      string
	Timestamp time.Time
	// Replies are the first page of replies to a top-level comment. Further
	// pages of replies are not followed.
	Replies []Comment
}

// Profile returns the connected account's profile and counts.
func (c *Client) Profile(ctx context.Context, tok Token) (Profile, error) {
	var r struct {
		ID             flexString `json:"id"`
		UserID         flexString `json:"user_id"`
		Username       string     `json:"username"`
		Name           string     `json:"name"`
		AccountType    string     `json:"account_type"`
		Picture        string     `json:"profile_picture_url"`
		FollowersCount flexInt    `json:"followers_count"`
		FollowsCount   flexInt    `json:"follows_count"`
		MediaCount     flexInt    `json:"media_count"`
	}
	q := url.Values{"fields": {"id,user_id,username,name,account_type,profile_picture_url,followers_count,follows_count,media_count"}}
	if err := c.graphGet(ctx, tok, "/me", q, &r); err != nil {
		return Profile{}, wrap("profile", err)
	}
	if r.ID == "" {
		return Profile{}, wrap("profile", &Error{Kind: ErrUnavailable, Message: "reply has no id"})
	}
	return Profile{
		ID: string(r.ID), UserID: string(r.UserID), Username: r.Username, Name: r.Name,
		AccountType: strings.ToUpper(r.AccountType), ProfilePictureURL: r.Picture,
		FollowersCount: int(r.FollowersCount), FollowsCount: int(r.FollowsCount), MediaCount: int(r.MediaCount),
	}, nil
}

type mediaReply struct {
	ID            flexString `json:"id"`
	Caption       string     `json:"caption"`
	MediaType     string     `json:"media_type"`
	ProductType   string     `json:"media_product_type"`
	MediaURL      string     `json:"media_url"`
	ThumbnailURL  string     `json:"thumbnail_url"`
	Permalink     string     `json:"permalink"`
	Timestamp     graphTime  `json:"timestamp"`
	LikeCount     *flexInt   `json:"like_count"`
	CommentsCount flexInt    `json:"comments_count"`
}

// Media returns up to limit of the account's newest posts, newest first,
// following the pages until limit items, the last page, or MaxPages.
func (c *Client) Media(ctx context.Context, tok Token, limit int) ([]Media, error) {
	q := url.Values{"fields": {"id,caption,media_type,media_product_type,media_url,thumbnail_url,permalink,timestamp,like_count,comments_count"}}
	replies, err := paginate[mediaReply](ctx, c, tok, "/me/media", q, limit)
	if err != nil {
		return nil, wrap("media", err)
	}
	media := make([]Media, 0, len(replies))
	for _, r := range replies {
		m := Media{
			ID: string(r.ID), Caption: r.Caption, MediaType: r.MediaType, ProductType: r.ProductType,
			MediaURL: r.MediaURL, ThumbnailURL: r.ThumbnailURL, Permalink: r.Permalink,
			Timestamp: time.Time(r.Timestamp), CommentsCount: int(r.CommentsCount), LikesHidden: r.LikeCount == nil,
		}
		if r.LikeCount != nil {
			m.LikeCount = int(*r.LikeCount)
		}
		media = append(media, m)
	}
	return media, nil
}

type commentReply struct {
	ID        flexString `json:"id"`
	Text      string     `json:"text"`
	Timestamp graphTime  `json:"timestamp"`
	Username  string     `json:"username"`
	From      struct {
		ID       flexString `json:"id"`
		Username string     `json:"username"`
	} `json:"from"`
	Replies struct {
		Data []commentReply `json:"data"`
	} `json:"replies"`
}

func (r commentReply) comment() Comment {
	c := Comment{ID: string(r.ID), Username: r.Username, UserID: string(r.From.ID), Text: r.Text,
		Timestamp: time.Time(r.Timestamp)}
	if c.Username == "" {
		c.Username = r.From.Username
	}
	for _, reply := range r.Replies.Data {
		c.Replies = append(c.Replies, reply.comment())
	}
	return c
}

// Comments returns up to limit top-level comments on a post, each with its
// first replies. Meta recommends fetching comments only for the latest posts
// (docs/instagram.md §3.5); this call costs one request per page.
func (c *Client) Comments(ctx context.Context, tok Token, mediaID string, limit int) ([]Comment, error) {
	if mediaID == "" {
		return nil, wrap("comments", &Error{Kind: ErrInvalidRequest, Message: "no media ID"})
	}
	q := url.Values{"fields": {"id,text,timestamp,username,from,replies{id,text,timestamp,username,from}"}}
	replies, err := paginate[commentReply](ctx, c, tok, "/"+url.PathEscape(mediaID)+"/comments", q, limit)
	if err != nil {
		return nil, wrap("comments", err)
	}
	comments := make([]Comment, 0, len(replies))
	for _, r := range replies {
		comments = append(comments, r.comment())
	}
	return comments, nil
}

// paginate follows cursor pages (docs/instagram.md §3.7). It stops when a page has no
// paging.next (not when a page is short: privacy filtering removes items),
// when limit items are in, when a cursor repeats, or after MaxPages. Each
// next request is rebuilt from our own base URL and the after cursor
// (paging.cursors.after, else the after parameter of paging.next), so the
// token is only ever sent to APIBaseURL whatever the next link says.
func paginate[T any](ctx context.Context, c *Client, tok Token, path string, q url.Values, limit int) ([]T, error) {
	if limit <= 0 {
		return nil, &Error{Kind: ErrInvalidRequest, Message: fmt.Sprintf("limit %d is not positive", limit)}
	}
	var items []T
	seen := map[string]bool{}
	for range MaxPages {
		q.Set("limit", fmt.Sprint(min(limit-len(items), pageSize)))
		var page struct {
			Data   []T `json:"data"`
			Paging struct {
				Cursors struct {
					After string `json:"after"`
				} `json:"cursors"`
				Next string `json:"next"`
			} `json:"paging"`
		}
		if err := c.graphGet(ctx, tok, path, q, &page); err != nil {
			return nil, err
		}
		items = append(items, page.Data[:min(len(page.Data), limit-len(items))]...)
		if len(items) >= limit || page.Paging.Next == "" {
			break
		}
		after := page.Paging.Cursors.After
		if after == "" {
			if next, err := url.Parse(page.Paging.Next); err == nil {
				after = next.Query().Get("after")
			}
		}
		if after == "" || seen[after] {
			break
		}
		seen[after] = true
		q.Set("after", after)
	}
	return items, nil
}

// graphGet calls a versioned Graph path with tok, through the per-token
// limiter, and feeds the reply's usage headers back to it.
func (c *Client) graphGet(ctx context.Context, tok Token, path string, q url.Values, out any) error {
	if tok.AccessToken == "" {
		return &Error{Kind: ErrReauthorize, Message: "no access token"}
	}
	waitCtx, cancel := context.WithTimeout(ctx, c.timeout)
	err := c.limits.wait(waitCtx, tok.AccessToken)
	cancel()
	if err != nil {
		if ctxErr := context.Cause(ctx); ctxErr != nil {
			return fmt.Errorf("instagram: request abandoned: %w", ctxErr)
		}
		return err
	}
	params := url.Values{}
	for k, v := range q {
		params[k] = v
	}
	params.Set("access_token", tok.AccessToken)
	header, err := c.do(ctx, request{method: http.MethodGet, url: c.apiBase + "/" + c.version + path + "?" + params.Encode(),
		secrets: []string{tok.AccessToken, c.appSecret}}, out)
	c.limits.observe(tok.AccessToken, header, err)
	return err
}

// wrap names the operation in an error, keeping it nil when there is none.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}

// graphTime decodes the API's timestamps, "2019-04-05T07:56:32+0000" (no
// colon in the offset, which time.RFC3339 rejects; docs/instagram.md §3.4), or
// RFC 3339 should Meta ever switch. An empty string is the zero time.
type graphTime time.Time

// timeLayout is the Graph API's timestamp layout.
const timeLayout = "2006-01-02T15:04:05-0700"

// UnmarshalJSON implements json.Unmarshaler.
func (t *graphTime) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamp is not a string")
	}
	tm, err := parseTime(s)
	if err != nil {
		return err
	}
	*t = graphTime(tm)
	return nil
}

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{timeLayout, time.RFC3339} {
		if tm, err := time.Parse(layout, s); err == nil {
			return tm.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("timestamp %q has an unknown layout", clean(s, nil))
}
