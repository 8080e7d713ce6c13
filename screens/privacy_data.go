package screens

import (
	"strconv"
	"strings"

	"glimpse/engine/ui"
)

// Paths of the privacy screens.
const (
	PathPrivacyData    = "/dashboard/privacy"
	PathDeleteAccount  = "/dashboard/privacy/delete"
	PathAccountDeleted = "/account-deleted"
	// PathDeletionStatus is the public page of a Meta data-deletion request.
	PathDeletionStatus = "/instagram/deletion"
)

// Actions of the privacy screens.
const (
	ActionRequestExport       = "privacy.request_export"
	ActionDownloadExport      = "privacy.download_export"
	ActionDisconnectInstagram = "privacy.disconnect_instagram"
	ActionDeleteAccount       = "privacy.delete_account"
)

// DeleteAccountForm is the id of the deletion form (its input: password).
const DeleteAccountForm = "delete-account"

// DisconnectOverlay asks before disconnecting Instagram.
const DisconnectOverlay = "disconnect-instagram"

// Export states on the privacy screen.
const (
	ExportNone      = ""
	ExportPreparing = "preparing"
	ExportReady     = "ready"
	ExportFailed    = "failed"
)

// exportPollMS is how often the screen looks again while an export is
// being prepared.
const exportPollMS = 2000

// PrivacyDataState is what the 'Privacy and data' screen shows.
type PrivacyDataState struct {
	Email string
	// Export is the newest export's state (Export* constants).
	Export string
	// ExportReadyAt and ExportExpires are formatted dates of a ready export;
	// ExportSize its size, formatted.
	ExportReadyAt, ExportExpires, ExportSize string
	// Instagram is the connected profile's username ("" when none is
	// connected); InstagramConnected is true for a connected profile
	// without a username too.
	Instagram          string
	InstagramConnected bool
}

// PrivacyData is the 'Privacy and data' screen: download my data (with its
// preparing state, which looks again every two seconds), disconnect
// Instagram, and the way to delete the account.
func PrivacyData(c Context, s PrivacyDataState) Page {
	body := []*ui.Node{ui.Text("body", c.T("privacyData.intro"))}

	body = append(body, ui.Text("heading", c.T("privacyData.exportHeading")),
		ui.Text("body", strings.ReplaceAll(c.T("privacyData.exportText"), "{email}", s.Email)))
	page := Page{}
	switch s.Export {
	case ExportPreparing:
		loader := ui.Loader(c.T("privacyData.exportPreparing"), false)
		body = append(body, loader)
	case ExportReady:
		ready := &ui.Node{Type: "banner", Tone: "positive", Title: c.T("privacyData.exportReady"),
			Text: strings.NewReplacer("{date}", s.ExportReadyAt, "{expires}", s.ExportExpires, "{size}", s.ExportSize).
				Replace(c.T("privacyData.exportReadyText"))}
		body = append(body, ready,
			ui.Button(c.T("privacyData.download"), "primary", ui.Call(ActionDownloadExport)),
			ui.Button(c.T("privacyData.exportAgain"), "secondary", ui.Call(ActionRequestExport)))
	case ExportFailed:
		body = append(body, errorLine(c.T("privacyData.exportFailed")),
			ui.Button(c.T("privacyData.exportAgain"), "primary", ui.Call(ActionRequestExport)))
	default:
		body = append(body, ui.Button(c.T("privacyData.export"), "primary", ui.Call(ActionRequestExport)))
	}

	body = append(body, ui.Divider(), ui.Text("heading", c.T("privacyData.instagramHeading")))
	if s.InstagramConnected {
		name := s.Instagram
		if name == "" {
			name = c.T("privacyData.instagramUnnamed")
		}
		body = append(body, ui.Text("body", strings.ReplaceAll(c.T("privacyData.instagramText"), "{username}", name)),
			danger(ui.Button(c.T("privacyData.disconnect"), "secondary", ui.OpenOverlay(DisconnectOverlay))))
	} else {
		body = append(body, ui.Text("body", c.T("privacyData.instagramNone")))
	}

	body = append(body, ui.Divider(), ui.Text("heading", c.T("privacyData.deleteHeading")),
		ui.Text("body", c.T("privacyData.deleteText")),
		danger(ui.Button(c.T("privacyData.deleteButton"), "secondary", ui.Navigate(PathDeleteAccount))),
		ui.Link(c.T("privacyData.policy"), ui.OpenURL(PathPrivacy, true)))

	page.Screen = SubPage(c, "privacy-data", c.T("privacyData.title"), nil, ui.Stack("md", body...))
	if s.Export == ExportPreparing {
		page.Screen.OnLoad = ui.After(exportPollMS, ui.Refresh())
	}
	confirm := ui.Dialog(DisconnectOverlay, "modal", c.T("privacyData.disconnectTitle"), ui.Stack("sm",
		ui.Text("body", c.T("privacyData.disconnectText")),
		danger(ui.Button(c.T("privacyData.disconnectConfirm"), "primary",
			ui.Sequence(ui.CloseOverlay(DisconnectOverlay), ui.Call(ActionDisconnectInstagram)))),
		ui.Button(c.T("privacyData.disconnectCancel"), "secondary", ui.CloseOverlay(DisconnectOverlay)),
	))
	confirm.CloseLabel = c.T("dialog.close")
	page.Overlays = map[string]*ui.Node{DisconnectOverlay: confirm}
	return page
}

// danger marks a button that deletes or ends something: drawn in the
// danger tone, so it never looks like the screen's way forward.
func danger(b *ui.Node) *ui.Node {
	b.Tone = "danger"
	return b
}

// DeleteAccountState is what the deletion screen says.
type DeleteAccountState struct {
	Email string
	// Plan is the plan that ends now ("" when none runs).
	Plan string
	// TaxYears is how long receipts are kept.
	TaxYears int
}

// DeleteAccount says plainly what deleting the account does, then asks for
// the password.
func DeleteAccount(c Context, s DeleteAccountState) Page {
	r := strings.NewReplacer("{email}", s.Email, "{plan}", s.Plan, "{years}", strconv.Itoa(s.TaxYears),
		"{support}", c.Brand.SupportEmail)
	points := []*ui.Node{}
	if s.Plan != "" {
		points = append(points, ui.Text("body", r.Replace(c.T("deleteAccount.plan"))))
	}
	for _, key := range []string{"deleteAccount.access", "deleteAccount.erased", "deleteAccount.kept", "deleteAccount.mail"} {
		points = append(points, ui.Text("body", r.Replace(c.T(key))))
	}
	list := ui.List(false, points...)
	list.Label = c.T("deleteAccount.whatHappens")
	submit := ui.Submit(ActionDeleteAccount, DeleteAccountForm)
	form := ui.Form(DeleteAccountForm, submit,
		ui.TextInput("password", "password", c.T("deleteAccount.passwordLabel"), c.T("deleteAccount.passwordPlaceholder"),
			ui.Required(c.T("deleteAccount.passwordRequired")), ui.MaxLength(1024, c.T("deleteAccount.passwordRequired"))),
		ui.FormError(DeleteAccountForm),
		danger(ui.Button(c.T("deleteAccount.submit"), "primary", submit)),
		ui.Button(c.T("deleteAccount.cancel"), "secondary", ui.Navigate(PathPrivacyData)),
	)
	form.Children[0].Autocomplete = "current-password"
	warning := &ui.Node{Type: "banner", Tone: "danger", Title: c.T("deleteAccount.warningTitle"), Text: c.T("deleteAccount.warning")}
	screen := SubPage(c, "delete-account", c.T("deleteAccount.title"), ui.Navigate(PathPrivacyData),
		ui.Stack("md", warning, ui.Text("heading", c.T("deleteAccount.whatHappens")), list, form))
	return Page{Screen: screen, State: map[string]any{"form": map[string]any{"password": ""}}}
}

// AccountDeleted is the public page after a deletion.
func AccountDeleted(c Context) Page {
	title := ui.Text("title", c.T("accountDeleted.title"))
	title.Align = "center"
	text := ui.Text("body", c.T("accountDeleted.text"))
	text.Align = "center"
	s := ui.Screen("account-deleted", c.T("accountDeleted.title"), ui.Stack("md", title, text,
		ui.Button(c.T("accountDeleted.home"), "primary", ui.Navigate(PathHome))))
	s.Footer = footer(c)
	return Page{Screen: s}
}

// DeletionStatusState is a Meta data-deletion request as its public page
// shows it: only its status.
type DeletionStatusState struct {
	Found  bool
	Code   string
	Status string // privacy.DeletionCompleted or privacy.DeletionNoData
	Date   string
}

// DeletionStatus is the public status page of a Meta data-deletion request.
func DeletionStatus(c Context, s DeletionStatusState) Page {
	title := ui.Text("title", c.T("deletionStatus.title"))
	var body *ui.Node
	switch {
	case !s.Found:
		body = errorLine(c.T("deletionStatus.unknown"))
	case s.Status == "no_data":
		body = ui.Text("body", strings.NewReplacer("{code}", s.Code, "{date}", s.Date).Replace(c.T("deletionStatus.noData")))
	default:
		body = &ui.Node{Type: "banner", Tone: "positive", Title: c.T("deletionStatus.completed"),
			Text: strings.NewReplacer("{code}", s.Code, "{date}", s.Date).Replace(c.T("deletionStatus.completedText"))}
	}
	sc := ui.Screen("deletion-status", c.T("deletionStatus.title"), ui.Stack("md", title, body,
		ui.Link(c.T("privacyData.policy"), ui.OpenURL(PathPrivacy, true))))
	sc.Footer = footer(c)
	return Page{Screen: sc}
}
