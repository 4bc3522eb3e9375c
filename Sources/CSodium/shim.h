#include <sodium.h>

#include <linux/sched/types.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Sets the calling thread's nice value and, on Linux 6.12 and later (EEVDF custom slices), its
/// time slice to `slice_ns` (clamped by the kernel to 0.1-100 ms): a long-running low-priority
/// thread then gives the CPU back after each short slice instead of a full default one. Returns
/// 0, or -1 when the kernel refused (older kernels: the caller falls back to nice alone).
static inline int gatehouse_set_nice_and_slice(int nice, unsigned long long slice_ns) {
    struct sched_attr attr = {0};
    attr.size = sizeof(attr);
    attr.sched_policy = 0;  /* SCHED_OTHER */
    attr.sched_nice = nice;
    attr.sched_runtime = slice_ns;
    return (int)syscall(SYS_sched_setattr, 0, &attr, 0);
}
