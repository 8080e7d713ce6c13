package profile

import (
	"context"
	"strings"

	"glimpse/engine"
	"glimpse/engine/analysis"
)

// AudiencePageMax is the most names one AudiencePage answers.
const AudiencePageMax = 200

// AudiencePage is one page of an audience group's names.
type AudiencePage struct {
	// Names are the page's names in natural order.
	Names []string `json:"names"`
	// Total is how many names match the search (the whole group without one).
	Total int `json:"total"`
	// Next is the offset of the page after this one; nil on the last page.
	Next *int `json:"next"`
}

// ErrNoAudience is a group the profile's data cannot list (an unknown group,
// no analysis yet, or a source that does not give the lists it needs).
var ErrNoAudience = engine.Errorf(engine.CodeNotFound, "This list is not available.")

// Audience returns the names of one audience group of the subscriber's
// latest analysis (analysis.Members, over the two latest snapshots it was
// made from) that contain search (ignoring case), from offset, at most limit
// (up to AudiencePageMax) of them.
func (s *Service) Audience(ctx context.Context, userID, group, search string, offset, limit int) (AudiencePage, error) {
	p, err := s.Get(ctx, userID)
	if err != nil {
		return AudiencePage{}, err
	}
	if len(p.Snapshots) == 0 || p.Result == nil {
		return AudiencePage{}, ErrNoAudience
	}
	in, err := s.latestInput(ctx, p)
	if err != nil {
		return AudiencePage{}, err
	}
	names, ok := analysis.Members(in, group)
	if !ok {
		return AudiencePage{}, ErrNoAudience
	}
	return pageOf(names, search, offset, limit), nil
}

// pageOf filters names by search (a case-insensitive substring) and cuts
// the page at offset.
func pageOf(names []string, search string, offset, limit int) AudiencePage {
	if search = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(search), "@"))); search != "" {
		matching := names[:0:0]
		for _, name := range names {
			if strings.Contains(strings.ToLower(name), search) {
				matching = append(matching, name)
			}
		}
		names = matching
	}
	limit = min(max(limit, 1), AudiencePageMax)
	offset = min(max(offset, 0), len(names))
	end := min(offset+limit, len(names))
	page := AudiencePage{Names: names[offset:end], Total: len(names)}
	if end < len(names) {
		page.Next = &end
	}
	return page
}
