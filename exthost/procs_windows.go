package exthost

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sysProcAttr starts the runner suspended, in a console process group of
// its own (a Ctrl-C meant for it does not reach spirit); startGroup puts
// it in its Job Object before it runs a single instruction, then resumes it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
}

// jobMemoryLimit caps the memory committed by an extension's whole
// process tree.
const jobMemoryLimit = 4 << 30

// jobs holds the Job Object of each running extension by process id.
var jobs sync.Map // int -> windows.Handle

var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// startGroup puts the suspended process in a new Job Object and resumes
// it. The job kills every process in it when its last handle closes
// (spirit's: so nothing outlives spirit, even killed), allows no
// breakaway, and caps the tree's memory. Whatever the process spawns is
// in the job too.
func startGroup(cmd *exec.Cmd) error {
	pid := cmd.Process.Pid
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | windows.JOB_OBJECT_LIMIT_JOB_MEMORY
	info.JobMemoryLimit = jobMemoryLimit
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("job object limits: %w", err)
	}
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME, false, uint32(pid))
	if err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("job object: process %d: %w", pid, err)
	}
	defer windows.CloseHandle(proc)
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("job object: assigning process %d: %w", pid, err)
	}
	jobs.Store(pid, job)
	if st, _, _ := ntResumeProcess.Call(uintptr(proc)); st != 0 {
		endGroup(pid)
		return fmt.Errorf("job object: resuming process %d: %w", pid, windows.NTStatus(st))
	}
	return nil
}

// endGroup terminates the extension's job (every process in it) and
// closes it.
func endGroup(pid int) {
	if j, ok := jobs.LoadAndDelete(pid); ok {
		_ = windows.TerminateJobObject(j.(windows.Handle), 1)
		_ = windows.CloseHandle(j.(windows.Handle))
	}
}

// killDescendants has nothing to do on Windows: what the extension
// spawned is in its job and ends with it (killGroup).
func killDescendants(int) {}

// errNoGroupSignal says Windows has no signal to ask a process group to end.
var errNoGroupSignal = errors.New("no process group signal on Windows")

// termGroup cannot ask politely on Windows; the caller kills the process.
func termGroup(int) error { return errNoGroupSignal }

// killGroup terminates the extension's job.
func killGroup(pid int) { endGroup(pid) }

// Supervise is Linux only.
func Supervise(args []string) error {
	return errors.New(SuperviseCommand + " is supported on Linux only")
}

// Supervised leaves cmd alone outside Linux: the job does its work.
func Supervised(cmd *exec.Cmd, exe string) {}
