package screens

import "glimpse/engine/ui"

// CreateAccountForm is the id of the account-creation form: a disabled
// email input, a password input and, from the state, the subscription id.
const CreateAccountForm = "create-account"

// CreateAccountState is what the 'Create Your Account' screen shows.
type CreateAccountState struct {
	// SubscriptionID is the paid subscription the account is created for
	// (the id query parameter). The server re-checks it on submit.
	SubscriptionID string
	// Email is the subscription's account email; the input is disabled.
	Email string
	// Problem, when set, is the copy key of why there is no form: the
	// checks run in the spec's order, id then subscription.
	Problem string
	// EmailInUse says an account with the email exists already: the
	// identity provider's message and a hint to restore the password.
	EmailInUse bool
}

// Copy keys of CreateAccountState.Problem.
const (
	CreateAccountNoID           = "createAccount.noSubscriptionId"
	CreateAccountNoSubscription = "createAccount.noSubscription"
)

// CreateAccount is the 'Create Your Account' screen at
// /access-recovery?id=<subscription id>: the email of the paid subscription
// (disabled), a password and 'Sign up'. Without a usable subscription it
// says why instead of showing the form.
func CreateAccount(c Context, st CreateAccountState) Page {
	logo := ui.ImageOf(c.Brand.Logo)
	logo.Size = "md"
	title := ui.Text("title", c.T("createAccount.title"))
	title.Align = "center"
	subtitle := ui.Text("body", c.T("createAccount.subtitle"))
	subtitle.Align = "center"
	restore := ui.Link(c.T("createAccount.restore"), ui.Navigate(PathSignIn))
	var body *ui.Node
	if st.Problem != "" {
		body = ui.Stack("md",
			&ui.Node{Type: "banner", Tone: "danger", Text: c.T(st.Problem)},
			ui.Button(c.T("accessRecovery.title"), "secondary", ui.Navigate(PathAccessRecovery)),
			restore,
		)
	} else {
		submit := &ui.Action{Type: "submit", Name: "account.create", Form: CreateAccountForm, Include: []string{"/subscriptionId"}}
		email := ui.TextInput("email", "email", c.T("createAccount.emailLabel"), "",
			ui.Email(c.T("createAccount.wrongEmail")))
		email.Disabled = true
		email.Autocomplete = "username"
		password := ui.TextInput("password", "password", c.T("createAccount.passwordLabel"), c.T("createAccount.passwordPlaceholder"),
			ui.MinLength(6, c.T("createAccount.minPassword")))
		password.Autocomplete = "new-password"
		var inUse *ui.Node
		if st.EmailInUse {
			inUse = &ui.Node{Type: "banner", Tone: "danger", Text: c.T("createAccount.emailInUse"),
				Children: []*ui.Node{ui.Link(c.T("createAccount.restoreHint"), ui.Navigate(PathSignIn))}}
		}
		body = ui.Form(CreateAccountForm, submit,
			inUse,
			email,
			password,
			restore,
			ui.FormError(CreateAccountForm),
			ui.Button(c.T("createAccount.submit"), "primary", submit),
		)
	}
	screen := ui.Screen("create-account", c.T("createAccount.title"), ui.Stack("lg", logo, title, subtitle, body))
	screen.Layout = "centered"
	screen.Footer = footer(c)
	return Page{Screen: screen, State: map[string]any{
		"subscriptionId": st.SubscriptionID,
		"form":           map[string]any{"email": st.Email, "password": ""},
	}}
}
