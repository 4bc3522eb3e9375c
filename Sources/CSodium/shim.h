#include <sodium.h>

#include <errno.h>
#include <linux/sched/types.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Sets the calling thread's time slice to `slice_ns` on Linux 6.12 and later (EEVDF custom
/// slices; the kernel clamps it to 0.1-100 ms), keeping its nice value: a long-running thread
/// then gives the CPU back after each short slice instead of a full default one. Returns the
/// system call's result; kernels before 6.12 accept the call and ignore the slice.
static inline int gatehouse_set_slice(unsigned long long slice_ns) {
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, 0);  /* who 0: the calling thread */
    if (errno != 0) nice = 0;
    struct sched_attr attr = {0};
    attr.size = sizeof(attr);
    attr.sched_policy = 0;  /* SCHED_OTHER */
    attr.sched_nice = nice;
    attr.sched_runtime = slice_ns;
    return (int)syscall(SYS_sched_setattr, 0, &attr, 0);
}
