package screens

import (
	"strings"

	"glimpse/engine/ui"
)

// Paths of the public recovery screens.
const (
	PathPasswordRecovery = "/password-recovery"
)

// Ids of the recovery forms and dialogs.
const (
	PasswordRecoveryForm   = "password-recovery"
	NewPasswordForm        = "new-password"
	ResetSentOverlay       = "reset-sent"
	AccessRecoveryForm     = "access-recovery"
	ActivationSentOverlay  = "activation-sent"
	PasswordChangedOverlay = "password-changed"
)

// ResetState is what the restore-password screen shows besides the email
// form: a live reset link's token (the new-password form instead) or a used
// or expired link (a notice above the email form).
type ResetState struct {
	// Token is the reset token the landing page was opened with. It reaches
	// the screen only in an action's answer (session.from_url), never in a
	// URL the server logs, and is posted back in the new-password form's
	// body.
	Token string
	// LinkInvalid says the link was used or has expired.
	LinkInvalid bool
}

// PasswordRecovery is the full-screen 'Restore password' screen: an email
// form that asks for a reset link, and, shown instead once a live link's
// token is in the state at /reset, the form that sets the new password. Both
// forms are always in the tree (one hidden) so that the server finds each
// one's rules at this path.
func PasswordRecovery(c Context, st ResetState) Page {
	hasToken := ui.Truthy("/reset")
	noToken := ui.Not(ui.Truthy("/reset"))

	title := ui.Text("title", c.T("passwordRecovery.title"))
	title.Align = "center"
	title.Visible = noToken
	intro := ui.Text("body", c.T("passwordRecovery.text"))
	intro.Align = "center"
	intro.Visible = noToken
	var notice *ui.Node
	if st.LinkInvalid {
		notice = &ui.Node{Type: "banner", Tone: "danger", Text: c.T("passwordRecovery.linkInvalid")}
	}
	emailForm := ui.Form(PasswordRecoveryForm, ui.Submit("account.restore_password", PasswordRecoveryForm),
		ui.TextInput("email", "email", c.T("passwordRecovery.emailLabel"), c.T("passwordRecovery.emailPlaceholder"),
			ui.Email(c.T("passwordRecovery.wrongEmail"))),
		ui.FormError(PasswordRecoveryForm),
		ui.Button(c.T("passwordRecovery.submit"), "primary", ui.Submit("account.restore_password", PasswordRecoveryForm)),
	)
	emailForm.Children[0].Autocomplete = "email"
	emailForm.Visible = noToken

	newTitle := ui.Text("title", c.T("passwordRecovery.newTitle"))
	newTitle.Align = "center"
	newTitle.Visible = hasToken
	newIntro := ui.Text("body", c.T("passwordRecovery.newText"))
	newIntro.Align = "center"
	newIntro.Visible = hasToken
	save := &ui.Action{Type: "submit", Name: "account.reset_password", Form: NewPasswordForm, Include: []string{"/reset"}}
	newForm := ui.Form(NewPasswordForm, save,
		ui.TextInput("password", "password", c.T("passwordRecovery.newPasswordLabel"), c.T("passwordRecovery.newPasswordPlaceholder"),
			ui.MinLength(6, c.T("passwordRecovery.minPassword"))),
		ui.FormError(NewPasswordForm),
		ui.Button(c.T("passwordRecovery.save"), "primary", save),
	)
	newForm.Children[0].Autocomplete = "new-password"
	newForm.Visible = hasToken

	logo := ui.ImageOf(c.Brand.Logo)
	logo.Size = "md"
	screen := ui.Screen("password-recovery", c.T("passwordRecovery.title"),
		ui.Stack("lg", logo, title, intro, newTitle, newIntro, notice, emailForm, newForm))
	screen.Layout = "centered"
	screen.Footer = footer(c)

	sent := ui.Dialog(ResetSentOverlay, "modal", c.T("passwordRecovery.sentTitle"),
		ui.Text("body", c.T("passwordRecovery.sentText")),
		ui.Button(c.T("passwordRecovery.gotIt"), "primary", ui.Replace(PathSignIn)),
	)
	sent.OnClose = ui.Replace(PathSignIn)
	return Page{
		Screen:   screen,
		Overlays: map[string]*ui.Node{ResetSentOverlay: sent},
		State:    map[string]any{"reset": st.Token, "form": map[string]any{"email": "", "password": ""}},
	}
}

// AccessRecovery is the 'Access Recovery' screen: the email form that asks
// for the activation mail of a paid subscription. sentTo, when set, is the
// address the mail went to, for the activation-sent dialog (the server then
// answers this page with the dialog open).
func AccessRecovery(c Context, sentTo string) Page {
	logo := ui.ImageOf(c.Brand.Logo)
	logo.Size = "md"
	title := ui.Text("title", c.T("accessRecovery.title"))
	title.Align = "center"
	intro := ui.Text("body", c.T("accessRecovery.text"))
	intro.Align = "center"
	form := ui.Form(AccessRecoveryForm, ui.Submit("account.send_activation", AccessRecoveryForm),
		ui.TextInput("email", "email", c.T("accessRecovery.emailLabel"), c.T("accessRecovery.emailPlaceholder"),
			ui.Email(c.T("accessRecovery.wrongEmail"))),
		ui.FormError(AccessRecoveryForm),
		ui.Button(c.T("accessRecovery.submit"), "primary", ui.Submit("account.send_activation", AccessRecoveryForm)),
	)
	form.Children[0].Autocomplete = "email"
	screen := ui.Screen("access-recovery", c.T("accessRecovery.title"), ui.Stack("lg", logo, title, intro, form))
	screen.Layout = "centered"
	screen.Footer = footer(c)
	page := Page{Screen: screen, State: map[string]any{"form": map[string]any{"email": ""}}}
	if sentTo != "" {
		// Closing the dialog clears the address, as the spec's flow does.
		done := ui.Sequence(ui.CloseOverlay(ActivationSentOverlay), ui.SetState("/form/email", ""))
		dlg := ui.Dialog(ActivationSentOverlay, "modal", c.T("accessRecovery.sentTitle"),
			ui.Text("body", strings.ReplaceAll(c.T("accessRecovery.sentText"), "{email}", sentTo)),
			ui.Button(c.T("accessRecovery.ok"), "primary", done),
		)
		dlg.OnClose = ui.SetState("/form/email", "")
		page.Overlays = map[string]*ui.Node{ActivationSentOverlay: dlg}
		page.Open = []string{ActivationSentOverlay}
		page.State["form"] = map[string]any{"email": sentTo}
	}
	return page
}
