package stripetest

import "syscall"

// dieWithParent has the kernel kill stripe-mock when the test binary dies.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
