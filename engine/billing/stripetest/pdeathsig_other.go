//go:build !linux

package stripetest

import "syscall"

// dieWithParent: only Linux can tie a child's life to its parent's; elsewhere
// the test's cleanup stops stripe-mock.
func dieWithParent() *syscall.SysProcAttr { return nil }
