#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_get_connection_info and MHD_get_daemon_info are variadic, so Swift cannot
// call them. The info types HTTPServer uses take no extra argument; these
// non-variadic wrappers forward exactly that call.
static inline const union MHD_ConnectionInfo *
gatehouse_mhd_connection_info(struct MHD_Connection *connection,
                              enum MHD_ConnectionInfoType info_type)
{
  return MHD_get_connection_info(connection, info_type);
}

static inline const union MHD_DaemonInfo *
gatehouse_mhd_daemon_info(struct MHD_Daemon *daemon,
                          enum MHD_DaemonInfoType info_type)
{
  return MHD_get_daemon_info(daemon, info_type);
}


#include <asm/unistd.h>
#include <unistd.h>

// accept4 and pipe2 are GNU extensions the Glibc module does not export. HTTPServer's acceptor
// opens every descriptor close-on-exec atomically through them (no window in which a process
// spawned by another thread inherits one).
static inline int
gatehouse_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags)
{
  return (int) syscall(__NR_accept4, fd, address, length, flags);
}

static inline int
gatehouse_pipe2(int fds[2], int flags)
{
  return (int) syscall(__NR_pipe2, fds, flags);
}
