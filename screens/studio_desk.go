package screens

import (
	"cmp"
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/library"
	"glimpse/engine/retention"
	"glimpse/engine/ui"
)

// The studio's desk: the copy catalogue searched and grouped by the screen
// each key appears on, a copy key edited beside that screen drawn with its
// text, and the home's items searched and sorted. Searches and sorts live in
// the address (?q=, ?sort=), so a view reloads and can be sent to a
// colleague, as Sanity's and Payload's list views can.

// Query parameters of the studio's searchable lists, and the home's sorts.
const (
	StudioQueryParam = "q"
	StudioSortParam  = "sort"
	// StudioSortKind is the home's default view: items under their kind.
	StudioSortKind = "kind"
	// StudioSortDate lists every item, last edited first.
	StudioSortDate = "date"
	// StudioSortEditor lists items under who edited them last, by name.
	StudioSortEditor = "editor"
	// StudioFindState is where a studio list keeps its search's context:
	// the sort in use, and for the copy list its brand.
	StudioFindState = "find"
)

// StudioSorts are the home's sorts, in the order its control offers them.
func StudioSorts() []string { return []string{StudioSortKind, StudioSortDate, StudioSortEditor} }

// StudioHomeQuery is what the studio's home shows: the items whose title,
// slug or kind hold every word of Q, in the order Sort names.
type StudioHomeQuery struct{ Q, Sort string }

// StudioHomeURL is the address of the home's view for q.
func StudioHomeURL(q StudioHomeQuery) string {
	v := url.Values{}
	if s := strings.TrimSpace(q.Q); s != "" {
		v.Set(StudioQueryParam, s)
	}
	if q.Sort != "" && q.Sort != StudioSortKind {
		v.Set(StudioSortParam, q.Sort)
	}
	if len(v) == 0 {
		return PathStudio
	}
	return PathStudio + "?" + v.Encode()
}

// StudioCopyURL is the address of one brand's copy list searched for q.
func StudioCopyURL(brandKey, q string) string {
	if q = strings.TrimSpace(q); q != "" {
		return PathStudioCopy + brandKey + "?" + url.Values{StudioQueryParam: {q}}.Encode()
	}
	return PathStudioCopy + brandKey
}

// matchesWords reports whether text holds every word of query, ignoring
// case (as the experiment form's key picker matches, choice-list.tsx).
func matchesWords(query string, text ...string) bool {
	all := strings.ToLower(strings.Join(text, "\n"))
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if !strings.Contains(all, w) {
			return false
		}
	}
	return true
}

// studioSearch is a list's search box: a form whose submit (the button, or
// Enter in the box) sends the words typed and the list's context to
// studio.find, which opens the list's address for them.
func studioSearch(c Context, label, q string) *ui.Node {
	find := ui.Call("studio.find", "/form/"+StudioQueryParam, "/"+StudioFindState)
	in := ui.TextInput(StudioQueryParam, "text", label, c.T("studio.search.placeholder"))
	return ui.Form("studio-find", find, in, ui.Button(c.T("studio.search.submit"), "secondary", find))
}

// StudioHomeView is the studio's home for a query: the items it matches,
// under their kind (StudioHome's own view) or in one list sorted by date or
// under their last editor, below a search box and the sort control.
func StudioHomeView(c Context, staff string, items []StudioItem, q StudioHomeQuery, extra ...*ui.Node) Page {
	if !slices.Contains(StudioSorts(), q.Sort) {
		q.Sort = StudioSortKind
	}
	var shown []StudioItem
	for _, it := range items {
		if matchesWords(q.Q, it.Title, it.Slug, it.Kind, c.T("studio.kind."+it.Kind)) {
			shown = append(shown, it)
		}
	}
	groups := map[string][]StudioItem{}
	if q.Sort == StudioSortKind {
		for _, it := range shown {
			groups[it.Kind] = append(groups[it.Kind], it)
		}
	}
	page := StudioHome(c, staff, groups, extra...)
	body := page.Screen.Children
	if len(body) != 1 || body[0].Type != ui.NodeTypeStack {
		return page
	}
	stack := *body[0]
	var kept []*ui.Node
	at := -1
	for i := 0; i < len(stack.Children); i++ {
		n := stack.Children[i]
		if kind, ok := kindHeading(c, n); ok && i+1 < len(stack.Children) && stack.Children[i+1].Label == c.T("studio.kind."+kind) {
			// A kind's heading and its list: kept in the kind view, else
			// replaced, where the first stood, by the sorted list.
			if at < 0 {
				at = len(kept)
			}
			if q.Sort == StudioSortKind {
				kept = append(kept, n, stack.Children[i+1])
			}
			i++
			continue
		}
		kept = append(kept, n)
	}
	if at < 0 {
		return page
	}
	controls := []*ui.Node{studioSearch(c, c.T("studio.search.homeLabel"), q.Q), studioSortControl(c, q)}
	if strings.TrimSpace(q.Q) != "" {
		controls = append(controls, ui.Text("caption", strings.NewReplacer("{n}", strconv.Itoa(len(shown)), "{q}", q.Q).
			Replace(c.T("studio.search.found"))))
	}
	var lists []*ui.Node
	switch q.Sort {
	case StudioSortDate:
		lists = []*ui.Node{studioItemList(c, c.T("studio.sort.date"), byDate(shown))}
	case StudioSortEditor:
		lists = studioByEditor(c, shown)
	}
	out := append(append(append([]*ui.Node{}, kept[:at]...), controls...), lists...)
	stack.Children = append(out, kept[at:]...)
	page.Screen.Children = []*ui.Node{&stack}
	page.State = map[string]any{"form": map[string]any{StudioQueryParam: q.Q},
		StudioFindState: map[string]any{"sort": q.Sort, "brand": ""}}
	return page
}

// kindHeading reports whether n is the heading of a kind's list on the home.
func kindHeading(c Context, n *ui.Node) (string, bool) {
	if n == nil || n.Type != ui.NodeTypeText || n.Style != "heading" {
		return "", false
	}
	for _, kind := range studioKinds {
		if n.Text == c.T("studio.kind."+kind) {
			return kind, true
		}
	}
	return "", false
}

// studioSortControl names the home's sorts: the one in use as a badge, the
// others as links to their view (the search kept).
func studioSortControl(c Context, q StudioHomeQuery) *ui.Node {
	parts := []*ui.Node{ui.Text("label", c.T("studio.sort.label"))}
	for _, s := range StudioSorts() {
		label := c.T("studio.sort." + s)
		if s == q.Sort {
			parts = append(parts, ui.Badge(strings.ReplaceAll(c.T("studio.sort.shown"), "{name}", label), "brand"))
			continue
		}
		parts = append(parts, ui.Link(label, ui.Navigate(StudioHomeURL(StudioHomeQuery{Q: q.Q, Sort: s}))))
	}
	row := ui.Row("md", parts...)
	row.Align = "center"
	row.Wrap = true
	return row
}

// byDate is items last edited first (then by title, so equal times keep
// one order).
func byDate(items []StudioItem) []StudioItem {
	out := slices.Clone(items)
	slices.SortStableFunc(out, func(a, b StudioItem) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), cmp.Compare(a.Title, b.Title))
	})
	return out
}

// studioByEditor is a list per editor (in name order, "nobody yet" last for
// items only ever imported), each last edited first.
func studioByEditor(c Context, items []StudioItem) []*ui.Node {
	by := map[string][]StudioItem{}
	for _, it := range items {
		by[it.By] = append(by[it.By], it)
	}
	names := slices.Sorted(maps.Keys(by))
	if len(names) > 0 && names[0] == "" {
		names = append(names[1:], "")
	}
	var out []*ui.Node
	for _, n := range names {
		title := n
		if n == "" {
			title = c.T("studio.sort.noEditor")
		}
		out = append(out, ui.Text("heading", title), studioItemList(c, title, byDate(by[n])))
	}
	return out
}

// studioItemList is a labelled list of items, each with its kind, status and
// last edit, opening its editor.
func studioItemList(c Context, label string, items []StudioItem) *ui.Node {
	rows := make([]*ui.Node, 0, len(items))
	for _, it := range items {
		status := c.T("studio.status." + it.Status)
		if it.Pending {
			status = c.T("studio.pending")
		}
		sub := []string{c.T("studio.kind." + it.Kind), it.Slug, status}
		if !it.UpdatedAt.IsZero() {
			edited := strings.NewReplacer("{at}", it.UpdatedAt.UTC().Format("Jan 2, 2006 15:04 UTC"), "{by}", cmp.Or(it.By, "—")).
				Replace(c.T("studio.sort.edited"))
			sub = append(sub, edited)
		}
		rows = append(rows, &ui.Node{Type: "list_item", Title: it.Title, Subtitle: strings.Join(sub, " · "),
			Action: ui.Navigate(PathStudioEdit + it.Kind + "/" + it.Slug)})
	}
	list := ui.List(true, rows...)
	list.Label = label
	return list
}

// copyScreens name the screen a copy key appears on by the key's first
// part(s), in the order a subscriber meets them; the name is the copy of
// "studio.screen.<id>". The flow's steps are named by their own title
// (copyScreenOf).
var copyScreens = []struct{ prefix, id string }{
	{"signIn", "signIn"}, {"createAccount", "createAccount"}, {"accessRecovery", "accessRecovery"},
	{"passwordRecovery", "passwordRecovery"}, {"auth", "signIn"}, {"app", "app"}, {"renderer", "app"},
	{"home", "home"}, {"menu", "menu"}, {"footer", "footer"}, {"logout", "menu"}, {"subpage", "app"},
	{"upload", "upload"}, {"instagram", "upload"}, {"analytics", "analytics"}, {"analysis", "analytics"},
	{"report", "analytics"}, {"insights", "insights"}, {"articles", "articles"}, {"reels", "articles"},
	{"news", "news"}, {"course", "course"}, {"breach", "breach"}, {"plan", "plan"}, {"billing", "billing"},
	{"receipt", "receipt"}, {"download", "receipt"}, {"checkout", "checkout"}, {"purchase", "purchase"},
	{"confirm", "confirm"}, {"sandboxPay", "sandboxPay"}, {"updateCard", "updateCard"},
	{"noSubscription", "noSubscription"}, {"subscriptionExpired", "noSubscription"},
	{"unsubscribe", "unsubscribe"}, {"unsubscription", "unsubscription"}, {"cancelByEmail", "unsubscription"},
	{"privacyData", "privacyData"}, {"deleteAccount", "deleteAccount"}, {"accountDeleted", "deleteAccount"},
	{"deletionStatus", "deleteAccount"}, {"legal", "legal"}, {"mail", "mail"}, {"error", "app"},
	{"dialog", "app"}, {"demo", "app"}, {"devMail", "devMail"}, {"studio", "studio"},
	{"studio.experiments", "experiments"}, {"support", "support"},
}

// copyScreenOf returns the screen a copy key appears on: its rank (the
// groups' order: the table's, the flow's steps in theirs right after the
// flow's own words, keys no screen is known for last), its id and its name.
// The reasons' texts are the reason step's.
func copyScreenOf(c Context, key string) (rank int, id, name string) {
	if step, ok := retention.StepOfCopyKey(key); ok {
		base, _, _ := copyScreenOf(c, "unsubscribe")
		n := strconv.Itoa(int(step))
		return base + 1 + int(step), "unsubscribe.step" + n, strings.NewReplacer("{n}", n,
			"{title}", c.T("unsubscribe.step"+n+".title")).Replace(c.T("studio.screen.unsubscribeStep"))
	}
	best := -1
	for i, s := range copyScreens {
		if (key == s.prefix || strings.HasPrefix(key, s.prefix+".")) && (best < 0 || len(s.prefix) > len(copyScreens[best].prefix)) {
			best = i
		}
	}
	if best < 0 {
		return 100 * len(copyScreens), "other", c.T("studio.screen.other")
	}
	// A screen several prefixes share ranks where it first appears.
	id = copyScreens[best].id
	first := slices.IndexFunc(copyScreens, func(s struct{ prefix, id string }) bool { return s.id == id })
	return 100 * first, id, c.T("studio.screen." + id)
}

// CopyScreenName is the name of the screen a copy key appears on, as the
// copy list groups it: "Sign in", "Unsubscribe · step 3 (A better price for
// you)".
func CopyScreenName(c Context, key string) string {
	_, _, name := copyScreenOf(c, key)
	return name
}

// StudioCopyTarget is the brand whose copy an editor changes: its key and
// the name people know it by.
type StudioCopyTarget struct{ BrandKey, BrandName string }

// StudioCopy lists one brand's copy, searched by key, text or screen for q:
// every key with the text it shows now, under the screen it appears on,
// below a switcher naming the brands (the one shown is marked, not linked,
// and the others keep the search).
func StudioCopy(c Context, brandKey string, brands []StudioBrand, items []StudioItem, q string) Page {
	name := brandKey
	switcher := make([]*ui.Node, 0, len(brands))
	for _, b := range brands {
		label := b.Name
		if b.Key == brand.DefaultKey {
			label = strings.ReplaceAll(c.T("studio.brandDefault"), "{name}", b.Name)
		}
		if b.Key == brandKey {
			name = label
			switcher = append(switcher, ui.Badge(strings.ReplaceAll(c.T("studio.brandShown"), "{name}", label), "brand"))
			continue
		}
		switcher = append(switcher, ui.Link(label, ui.Navigate(StudioCopyURL(b.Key, q))))
	}
	type placed struct {
		rank       int
		id, screen string
		it         StudioItem
	}
	var shown []placed
	for _, it := range items {
		_, key, _ := strings.Cut(it.Slug, "/")
		rank, id, screen := copyScreenOf(c, key)
		if matchesWords(q, key, it.Title, screen) {
			shown = append(shown, placed{rank, id, screen, it})
		}
	}
	slices.SortStableFunc(shown, func(a, b placed) int { return a.rank - b.rank })
	row := ui.Row("md", switcher...)
	row.Wrap = true
	children := []*ui.Node{ui.Text("body", strings.ReplaceAll(c.T("studio.copyText"), "{brand}", name)), row,
		studioSearch(c, c.T("studio.search.copyLabel"), q)}
	if strings.TrimSpace(q) != "" {
		children = append(children, ui.Text("caption", strings.NewReplacer("{n}", strconv.Itoa(len(shown)), "{q}", q).
			Replace(c.T("studio.search.foundCopy"))))
	}
	if len(shown) == 0 {
		children = append(children, &ui.Node{Type: "empty_state", Icon: "search",
			Title: strings.ReplaceAll(c.T("studio.search.none"), "{q}", q)})
	}
	for i := 0; i < len(shown); {
		j := i
		var rows []*ui.Node
		for ; j < len(shown) && shown[j].id == shown[i].id; j++ {
			it := shown[j].it
			_, key, _ := strings.Cut(it.Slug, "/")
			rows = append(rows, &ui.Node{Type: "list_item", Title: key, Subtitle: it.Title,
				Action: ui.Navigate(PathStudioEdit + it.Kind + "/" + it.Slug)})
		}
		list := ui.List(true, rows...)
		list.Label = shown[i].screen
		children = append(children, ui.Text("heading", shown[i].screen), list)
		i = j
	}
	scr := SubPage(c, "studio-copy", c.T("studio.editCopy"), ui.Navigate(PathStudio), ui.Stack("md", children...))
	scr.Width = "wide"
	return Page{Screen: scr, State: map[string]any{"form": map[string]any{StudioQueryParam: q},
		StudioFindState: map[string]any{"sort": "", "brand": brandKey}}}
}

// StudioCopyMissing is the studio's answer for the address of a copy key
// (or a brand) that does not exist: a screen of its own, reloadable like
// every other, that says so and leads back to the brand's copy list.
func StudioCopyMissing(c Context, brandKey, key string) Page {
	back := PathStudioCopy + brand.DefaultKey
	if brandKey != "" && !strings.ContainsAny(brandKey, "/?#") {
		back = PathStudioCopy + url.PathEscape(brandKey)
	}
	text := strings.NewReplacer("{key}", key, "{brand}", brandKey).Replace(c.T("studio.copyMissingText"))
	body := ui.Stack("md", &ui.Node{Type: "empty_state", Icon: "search", Title: c.T("studio.copyMissing"), Text: text},
		ui.Link(c.T("studio.copyMissingBack"), ui.Navigate(back)))
	scr := SubPage(c, "studio-copy-missing", c.T("studio.copyMissing"), ui.Navigate(back), body)
	scr.Width = "wide"
	return Page{Screen: scr}
}

// copyPreviewMark stands for a key's text while CopyPreview finds which part
// of a screen draws it.
const copyPreviewMark = "\u27e6copy-preview\u27e7"

// copyPreviewScreens compose, for a screen of copyScreens, the screens it
// stands for as a person first meets them, from c alone (no subscriber's
// data): what the copy editor draws a key's text in. A key is drawn on the
// first of them that shows it.
var copyPreviewScreens = map[string][]func(c Context) Page{
	"signIn":           {func(c Context) Page { return SignIn(c, PathCheckout) }},
	"createAccount":    {func(c Context) Page { return CreateAccount(c, CreateAccountState{}) }},
	"accessRecovery":   {func(c Context) Page { return AccessRecovery(c, "") }},
	"passwordRecovery": {func(c Context) Page { return PasswordRecovery(c, ResetState{}) }},
	"home":             {func(c Context) Page { return Home(c, HomeState{}) }},
	"analytics":        {func(c Context) Page { return Analytics(c, AnalyticsState{}) }},
	"news":             {func(c Context) Page { return NewsList(c, nil) }},
	"course":           {func(c Context) Page { return Course(c, nil) }},
	"breach":           {func(c Context) Page { return PasswordSafety(c, PasswordSafetyState{}) }},
	"billing":          {func(c Context) Page { return BillingHistory(c, nil) }},
	"receipt":          {func(c Context) Page { return Receipt(c, nil) }},
	"checkout": {func(c Context) Page { return Checkout(c, CheckoutState{}) },
		func(c Context) Page { return CheckoutDone(c, OrderState{}) }},
	"confirm":        {func(c Context) Page { return ConfirmPayment(c, ConfirmState{}) }},
	"updateCard":     {func(c Context) Page { return UpdateCard(c, "preview", "", PathBilling) }},
	"unsubscription": {Unsubscription},
	"privacyData":    {func(c Context) Page { return PrivacyData(c, PrivacyDataState{}) }},
	"deleteAccount": {func(c Context) Page { return DeleteAccount(c, DeleteAccountState{}) }, AccountDeleted,
		func(c Context) Page { return DeletionStatus(c, DeletionStatusState{}) }},
	"devMail": {func(c Context) Page { return DevMailbox(c, nil) }},
	"studio":  {StudioSignIn, func(c Context) Page { return StudioHome(c, "", nil) }},
	"experiments": {func(c Context) Page { return StudioExperiments(c, nil) },
		func(c Context) Page { return StudioNewExperiment(c, nil) }},
	"support": {func(c Context) Page { return SupportDesk(c, SupportState{}) }},
	"plan":    {planPreview(MyPlan), planPreview(ChangePlan)},
}

// planPreview draws a part of My Plan (a node, not a page) for a subscriber
// on the weekly plan.
func planPreview(part func(Context, PlanState) *ui.Node) func(Context) Page {
	return func(c Context) Page {
		return Page{Screen: ui.Screen("plan", "", part(c, PlanState{Plan: billing.Describe("")}))}
	}
}

// CopySample is the subscriber the copy editor's preview draws a screen
// for, where a screen shows one: the brand's plan-change offer and a
// current period ending a week from today (the server's clock).
type CopySample struct {
	Sale      billing.PlanSpec
	PeriodEnd time.Time
	// Operator and Support name the seller and the support address a
	// mail is signed with, Origin the address its links point at (the
	// server's configuration; empty: the brand's name, its support
	// address, an example address).
	Operator, Support, Origin string
}

// unsubscribePreviewStep is a step of the flow as the copy editor draws it:
// a subscriber on the weekly plan, with the sample's offer and dates; with a
// result, the outcome page the step ended on.
func unsubscribePreviewStep(c Context, step retention.Step, sample CopySample, result string) Page {
	st := UnsubscribeState{Attempt: "preview", Step: step, Return: PathStudio, Plan: billing.Describe(""), Sale: sample.Sale, Result: result}
	if !sample.PeriodEnd.IsZero() {
		st.PeriodEnd = brand.Date(sample.PeriodEnd)
		st.GiftEnd = brand.Date(sample.PeriodEnd.AddDate(0, 1, 0))
	}
	return UnsubscribeStep(c, st)
}

// CopyPreview draws a copy key's text in place: the screen the key appears
// on, composed in c's words with text as the key's, when the studio can
// draw that screen and the key shows on it as a person first meets it (the
// flow's steps as the experiment form's preview draws them); otherwise the
// screen's name and the text alone, so the editor still reads it. Ids and
// bindings are renamed (previewTree), so the preview's inputs never touch
// the editor's form.
func CopyPreview(c Context, key, text string, sample CopySample) *ui.Node {
	_, id, name := copyScreenOf(c, key)
	caption := ui.Text("caption", strings.ReplaceAll(c.T("studio.copyPreview.on"), "{screen}", name))
	composers := append(slices.Clone(copyPreviewScreens[id]), stateScreens[id]...)
	switch step, ok := retention.StepOfCopyKey(key); {
	case ok:
		composers = []func(Context) Page{func(c Context) Page { return unsubscribePreviewStep(c, step, sample, "") }}
		// The outcome pages an accepted offer or a cancel ends on.
		for _, result := range []string{UnsubscribeUpdated, UnsubscribeGifted, UnsubscribeCanceled} {
			composers = append(composers, func(c Context) Page { return unsubscribePreviewStep(c, step, sample, result) })
		}
	case id == "mail":
		composers = mailPreviews(sample)
	case id == "unsubscribe":
		// The flow's own words (Back, Close…) show on every step.
		composers = []func(Context) Page{func(c Context) Page { return unsubscribePreviewStep(c, 0, sample, "") }}
	}
	if form, ok := copyPreviewFormErrors[key]; ok {
		for i, compose := range composers {
			composers[i] = withFormError(compose, form, key)
		}
	}
	marked := Context{Brand: c.Brand, Copy: c.Copy.Layered(map[string]string{key: copyPreviewMark}, nil)}
	drawn := Context{Brand: c.Brand, Copy: c.Copy.Layered(map[string]string{key: text}, nil)}
	for _, compose := range composers {
		// First with a mark for the text, to find the part of the screen
		// that shows the key (its body, or one of its dialogs); then that
		// part with the text itself.
		_, part, ok := copyPreviewPart(compose(marked), true, "")
		if !ok {
			continue
		}
		if nodes, _, ok := copyPreviewPart(compose(drawn), false, part); ok {
			tree := ui.Stack("sm", append([]*ui.Node{caption}, previewTree(nodes, "pv")...)...)
			if validPreview(tree) {
				return tree
			}
		}
	}
	alone := ui.Text("caption", c.T("studio.copyPreview.alone"))
	return ui.Stack("sm", caption, alone, ui.Card(nil, ui.Text("body", text)))
}

// validPreview reports whether a preview drawn from a screen composed
// without a subscriber's data still meets the schema (a part that needs that
// data may leave a text empty): the renderer refuses a tree that does not,
// so such a preview falls back to the text alone.
func validPreview(tree *ui.Node) bool { return ui.ValidateNode(tree) == nil }

// copyPreviewPart returns a page's part: its body (its header's title and
// its children, named "") or one of its dialogs (named by id). With find
// set it is the first, body then dialogs in id order, that holds
// copyPreviewMark; else the one named name.
func copyPreviewPart(p Page, find bool, name string) ([]*ui.Node, string, bool) {
	type part struct {
		name  string
		nodes []*ui.Node
	}
	var parts []part
	if p.Screen != nil {
		body := []*ui.Node{}
		if p.Screen.Header != nil && p.Screen.Header.Title != "" {
			body = append(body, ui.Text("heading", p.Screen.Header.Title))
		}
		body = append(body, p.Screen.Children...)
		if p.Screen.Footer != nil {
			// The footer's links are the page's too.
			body = append(body, p.Screen.Footer)
		}
		parts = append(parts, part{"", body})
	}
	for _, id := range slices.Sorted(maps.Keys(p.Overlays)) {
		d := p.Overlays[id]
		parts = append(parts, part{id, append([]*ui.Node{ui.Text("heading", d.Title)}, d.Children...)})
	}
	for _, pt := range parts {
		if !find {
			if pt.name == name {
				return pt.nodes, pt.name, true
			}
			continue
		}
		raw, err := json.Marshal(pt.nodes)
		if err == nil && strings.Contains(string(raw), copyPreviewMark) {
			return pt.nodes, pt.name, true
		}
	}
	return nil, "", false
}

// StudioItemsOf lists stored items for the home, with their last edit.
func StudioItemsOf(docs []library.Doc) []StudioItem {
	items := make([]StudioItem, 0, len(docs))
	for _, d := range docs {
		items = append(items, StudioItem{Kind: d.Kind, Slug: d.Slug, Title: d.Draft["title"], Status: d.Status,
			Pending: d.HasUnpublishedChanges(), UpdatedAt: d.UpdatedAt, By: d.UpdatedBy})
	}
	return items
}
