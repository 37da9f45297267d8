/*
 * cli_signals.c - signals for commands that run inside a log pipeline.
 *
 * By default (main.c) a terminating signal removes logtk's temporary files
 * and ends the program.  A command that runs as a shipper's child (parse
 * --stream, compress, detect watch) must instead finish cleanly: on SIGTERM
 * or SIGINT stop reading, finish the row or block in hand, commit the
 * outputs and exit 0; on SIGHUP commit what is written and reopen its output
 * (log rotation).  The handlers only set flags (sig_atomic_t); the command's
 * loop looks at them.  Two things make that loop see them in time:
 *  - SA_RESTART, so that a write or read interrupted by the signal goes on
 *    instead of failing half-way (stdio would record a write error);
 *  - for SIGTERM/SIGINT, when the input is standard input, /dev/null is put
 *    in place of descriptor 0: a read blocked on a quiet pipe restarts on
 *    /dev/null and returns end of file, so the command ends as at the end of
 *    its input, through its normal path.  Bytes still in the pipe were never
 *    read, hence never acknowledged; a shipper resends them.
 * A second SIGTERM or SIGINT while finishing ends the program at once, as
 * before (temporary files removed, default action).
 */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

volatile sig_atomic_t cli_stop_signal;
volatile sig_atomic_t cli_hup_pending;
static volatile sig_atomic_t close_stdin_on_stop;

static void on_stop(int sig)
{
    if (cli_stop_signal) {
        logtk_remove_temporaries();
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    cli_stop_signal = sig;
    if (close_stdin_on_stop) {
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd >= 0 && null_fd != STDIN_FILENO) {
            dup2(null_fd, STDIN_FILENO);
            close(null_fd);
        }
    }
}

static void on_hup(int sig)
{
    (void)sig;
    cli_hup_pending = 1;
}

static void install(int sig, void (*handler)(int), int even_if_ignored)
{
    struct sigaction old, sa;
    /* a signal ignored by whoever started us (a background job's SIGINT)
       stays ignored -- but SIGHUP, which nohup ignores so that a hangup does
       not end the program: here it never does, it only rotates the output,
       which a nohup'ed child of a shipper still needs */
    if (!even_if_ignored && sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

void cli_signals_graceful(int stdin_is_input)
{
    close_stdin_on_stop = stdin_is_input;
    install(SIGTERM, on_stop, 0);
    install(SIGINT, on_stop, 0);
    install(SIGHUP, on_hup, 1);
}

const char *cli_signal_name(int sig)
{
    return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/*
 * A note for a person kept waiting: SIGALRM writes it once.  write(2) is
 * async-signal-safe and the text is fixed before the alarm is set; with
 * SA_RESTART the read the alarm interrupts goes on.
 */
static const char *hint_text;
static size_t hint_len;

static void on_hint_alarm(int sig)
{
    (void)sig;
    if (hint_text) {
        ssize_t w = write(STDERR_FILENO, hint_text, hint_len);
        (void)w; /* nothing to do about a note that could not be written */
    }
}

void cli_hint_after(unsigned seconds, const char *text)
{
    hint_text = text;
    hint_len = strlen(text);
    install(SIGALRM, on_hint_alarm, 1);
    alarm(seconds);
}

void cli_hint_cancel(void)
{
    alarm(0);
    signal(SIGALRM, SIG_DFL);
    hint_text = NULL;
}
