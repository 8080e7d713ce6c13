package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Account insight metrics that still work (docs/instagram.md §3.6). Impressions and
// profile_views are gone; use views.
const (
	MetricFollowerCount        = "follower_count"        // new followers per day, time_series, ≤ 30 days, ≥ 100 followers
	MetricOnlineFollowers      = "online_followers"      // lifetime; hour → followers online
	MetricReach                = "reach"                 // day; total_value or time_series
	MetricViews                = "views"                 // day, total_value
	MetricAccountsEngaged      = "accounts_engaged"      // day, total_value
	MetricTotalInteractions    = "total_interactions"    // day, total_value
	MetricFollowsAndUnfollows  = "follows_and_unfollows" // day, total_value, breakdown follow_type; counts only
	MetricFollowerDemographics = "follower_demographics" // lifetime, total_value, timeframe + one breakdown
)

// InsightsQuery asks for account insights (GET /{ig-id}/insights,
// docs/instagram.md §3.6). Empty fields are left out of the request.
type InsightsQuery struct {
	// UserID is the professional account ID; "me" when empty.
	UserID  string
	Metrics []string
	// Period is day, week, days_28 or lifetime.
	Period string
	// MetricType is time_series or total_value.
	MetricType string
	// Breakdown is one of the metric's breakdowns, e.g. follow_type.
	Breakdown string
	// Timeframe is this_week or this_month, for the demographics.
	Timeframe string
	// Since and Until bound the window; keep it within 30 days
	// (docs/instagram.md §3.6).
	Since, Until time.Time
}

// Insights is the answer to an InsightsQuery.
type Insights struct {
	Metrics []Metric
	// Refused are the metrics the API would not give (error 100): deprecated,
	// not valid with this period, or (for follower_count, online_followers
	// and the demographics) an account under 100 followers. They are not an
	// error: the rest still counts.
	Refused []string
}

// Metric returns the metric with the given name.
func (in Insights) Metric(name string) (Metric, bool) {
	for _, m := range in.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Metric is one metric's values. A time_series metric has Values; a
// total_value metric has Total. "If data does not exist the API returns an
// empty data set instead of 0" (docs/instagram.md §3.6), so a metric may be absent.
type Metric struct {
	Name, Period, Title string
	Values              []Value
	Total               *Total
}

// Value is one point of a time series, ending at EndTime. Value is the number;
// ByKey holds the map some metrics give instead (online_followers: hour →
// count).
type Value struct {
	EndTime time.Time
	Value   int64
	ByKey   map[string]int64
}

// Total is a total_value metric, with its breakdowns when one was asked for.
type Total struct {
	Value      int64
	Breakdowns []Breakdown
}

// Breakdown splits a total by dimensions (e.g. follow_type).
type Breakdown struct {
	Dimensions []string
	Results    []BreakdownResult
}

// BreakdownResult is the value for one combination of dimension values. The
// labels vary (FOLLOWER or FOLLOW…), so compare loosely (docs/instagram.md §3.6).
type BreakdownResult struct {
	DimensionValues []string
	Value           int64
}

// AccountInsights asks for q's metrics in one call. When the API refuses the
// call with error 100 and several metrics were asked for, it asks for each
// metric alone and lists those refused in Insights.Refused, so one metric the
// account cannot have does not hide the others. Any other failure fails the
// whole call. Time-based paging (paging.next shifting the window) is not
// followed: ask for the window you want.
func (c *Client) AccountInsights(ctx context.Context, tok Token, q InsightsQuery) (Insights, error) {
	if len(q.Metrics) == 0 {
		return Insights{}, wrap("insights", &Error{Kind: ErrInvalidRequest, Message: "no metrics asked for"})
	}
	metrics, err := c.insights(ctx, tok, q, q.Metrics)
	if err == nil {
		return Insights{Metrics: metrics}, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return Insights{}, wrap("insights", err)
	}
	if len(q.Metrics) == 1 {
		return Insights{Metrics: []Metric{}, Refused: q.Metrics}, nil
	}
	var out Insights
	for _, name := range q.Metrics {
		got, err := c.insights(ctx, tok, q, []string{name})
		switch {
		case errors.Is(err, ErrNotFound):
			out.Refused = append(out.Refused, name)
		case err != nil:
			return Insights{}, wrap("insights", err)
		default:
			out.Metrics = append(out.Metrics, got...)
		}
	}
	if out.Metrics == nil {
		out.Metrics = []Metric{}
	}
	return out, nil
}

func (c *Client) insights(ctx context.Context, tok Token, q InsightsQuery, names []string) ([]Metric, error) {
	params := url.Values{"metric": {strings.Join(names, ",")}}
	for key, value := range map[string]string{"period": q.Period, "metric_type": q.MetricType,
		"breakdown": q.Breakdown, "timeframe": q.Timeframe} {
		if value != "" {
			params.Set(key, value)
		}
	}
	if !q.Since.IsZero() {
		params.Set("since", strconv.FormatInt(q.Since.Unix(), 10))
	}
	if !q.Until.IsZero() {
		params.Set("until", strconv.FormatInt(q.Until.Unix(), 10))
	}
	user := q.UserID
	if user == "" {
		user = "me"
	}
	var reply struct {
		Data []struct {
			Name   string `json:"name"`
			Period string `json:"period"`
			Title  string `json:"title"`
			Values []struct {
				Value   json.RawMessage `json:"value"`
				EndTime graphTime       `json:"end_time"`
			} `json:"values"`
			Total *struct {
				Value      flexInt `json:"value"`
				Breakdowns []struct {
					DimensionKeys []string `json:"dimension_keys"`
					Results       []struct {
						DimensionValues []string `json:"dimension_values"`
						Value           flexInt  `json:"value"`
					} `json:"results"`
				} `json:"breakdowns"`
			} `json:"total_value"`
		} `json:"data"`
	}
	if err := c.graphGet(ctx, tok, "/"+url.PathEscape(user)+"/insights", params, &reply); err != nil {
		return nil, err
	}
	metrics := []Metric{}
	for _, d := range reply.Data {
		m := Metric{Name: d.Name, Period: d.Period, Title: d.Title}
		for _, v := range d.Values {
			m.Values = append(m.Values, parseValue(v.Value, time.Time(v.EndTime)))
		}
		if d.Total != nil {
			m.Total = &Total{Value: int64(d.Total.Value)}
			for _, b := range d.Total.Breakdowns {
				bd := Breakdown{Dimensions: b.DimensionKeys}
				for _, r := range b.Results {
					bd.Results = append(bd.Results, BreakdownResult{DimensionValues: r.DimensionValues, Value: int64(r.Value)})
				}
				m.Total.Breakdowns = append(m.Total.Breakdowns, bd)
			}
		}
		metrics = append(metrics, m)
	}
	return metrics, nil
}

// parseValue reads a value that is a number, or a map of numbers
// (online_followers, the legacy demographics); anything else is 0.
func parseValue(raw json.RawMessage, end time.Time) Value {
	v := Value{EndTime: end}
	var n flexInt
	if len(raw) > 0 && raw[0] != '{' {
		_ = json.Unmarshal(raw, &n)
		v.Value = int64(n)
		return v
	}
	var byKey map[string]flexInt
	if json.Unmarshal(raw, &byKey) == nil {
		v.ByKey = make(map[string]int64, len(byKey))
		for k, n := range byKey {
			v.ByKey[k] = int64(n)
		}
	}
	return v
}
