/*
 * outfile.c - atomic output files.
 *
 * Every output (sinks, archives, reports) goes through here so that a crash,
 * a full disk or a bad input half-way never leaves a truncated file where a
 * good one used to be.  The recipe is the classic one: create a temporary
 * file with mkstemp() in the target's own directory (rename() is only atomic
 * within one file system), write, fflush + fsync + fclose while checking every
 * step (ENOSPC often surfaces only at flush or close), then rename() over the
 * target.  mkstemp() creates the file 0600; we fchmod it to 0666 & ~umask so
 * the result looks like any file created with fopen().  The umask is read
 * from /proc/self/status when possible because the umask(0)/umask(old) dance
 * is not thread-safe; the dance is only the fallback.
 */
#include "config.h"
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The registry of temporary files for logtk_remove_temporaries(), which a
 * signal handler calls: it may interrupt a registration half-way, and must
 * not take locks or touch the heap.  So the paths live in fixed slots (in
 * .bss: untouched pages cost nothing), each with an atomic state; a handler
 * unlinks only slots whose path is complete.
 */
enum { TEMP_SLOTS = 64, TEMP_PATH_MAX = 4096 };
enum { SLOT_FREE = 0, SLOT_FILLING = 1, SLOT_READY = 2 };
static atomic_int temp_state[TEMP_SLOTS];
static char temp_path[TEMP_SLOTS][TEMP_PATH_MAX];

int logtk_temporary_add(const char *path)
{
    size_t n = strlen(path);
    if (n >= TEMP_PATH_MAX)
        return LOGTK_ERR_INVALID;
    for (size_t i = 0; i < TEMP_SLOTS; i++) {
        int expected = SLOT_FREE;
        if (atomic_compare_exchange_strong(&temp_state[i], &expected, SLOT_FILLING)) {
            memcpy(temp_path[i], path, n + 1);
            atomic_store(&temp_state[i], SLOT_READY);
            return LOGTK_OK;
        }
    }
    return LOGTK_ERR_NOMEM;
}

void logtk_temporary_remove(const char *path)
{
    for (size_t i = 0; i < TEMP_SLOTS; i++) {
        int expected = SLOT_READY;
        if (strcmp(temp_path[i], path) == 0 &&
            atomic_compare_exchange_strong(&temp_state[i], &expected, SLOT_FILLING)) {
            temp_path[i][0] = '\0';
            atomic_store(&temp_state[i], SLOT_FREE);
            return;
        }
    }
}

void logtk_remove_temporaries(void)
{
    for (size_t i = 0; i < TEMP_SLOTS; i++)
        if (atomic_load(&temp_state[i]) == SLOT_READY)
            unlink(temp_path[i]);
}

static int is_stdout_path(const char *path)
{
    return path == NULL || strcmp(path, "-") == 0;
}

static int set_io_error(ltk_errbuf *err, const char *path, int errnum)
{
    if (err)
        return ltk_error_set(err, LOGTK_ERR_IO, "%s: %s", path ? path : "<stdout>",
                               strerror(errnum));
    return LOGTK_ERR_IO;
}

/* The process umask without modifying it where the kernel tells us. */
static mode_t current_umask(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "Umask:", 6) == 0) {
                mode_t m = (mode_t)strtoul(line + 6, NULL, 8);
                fclose(f);
                return m;
            }
        }
        fclose(f);
    }
    mode_t m = umask(022);
    umask(m);
    return m;
}

#define OUTFILE_BUFFER_SIZE ((size_t)1 << 18)

/*
 * Nonzero when path names a file a process holds open, through /proc: it
 * is under /proc/ or /dev/fd/, or a symlink to one (/dev/stdout ->
 * /proc/self/fd/1).
 */
static int names_open_file(const char *path)
{
    if (strncmp(path, "/proc/", 6) == 0 || strncmp(path, "/dev/fd/", 8) == 0)
        return 1;
    char link[64];
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0)
        return 0;
    link[n] = '\0';
    return strncmp(link, "/proc/", 6) == 0 || strncmp(link, "/dev/fd/", 8) == 0;
}

/*
 * Opens path for writing in place (no temporary file, nothing renamed); a
 * file a process holds open is appended to, as its descriptor would write
 * ("(logtk ... --templates /dev/stdout; ...) > file" keeps the lines before).
 */
static int open_direct(ltk_outfile *o, const char *path, int append, ltk_errbuf *err)
{
    o->path = strdup(path);
    if (!o->path)
        return err ? ltk_error_set(err, LOGTK_ERR_NOMEM, "%s: out of memory", path)
                   : LOGTK_ERR_NOMEM;
    o->fp = fopen(path, append ? "a" : "w");
    if (!o->fp) {
        int e = errno;
        free(o->path);
        o->path = NULL;
        return set_io_error(err, path, e);
    }
    return LOGTK_OK;
}

int ltk_outfile_open(ltk_outfile *o, const char *path, ltk_errbuf *err)
{
    o->fp = NULL;
    o->path = NULL;
    o->tmp_path = NULL;
    o->buffer = NULL;
    if (is_stdout_path(path)) {
        o->fp = stdout;
        return LOGTK_OK;
    }
    size_t n = strlen(path);
    if (n == 0 || path[n - 1] == '/') {
        if (err)
            return ltk_error_set(err, LOGTK_ERR_IO, "%s: not a file name", n ? path : "\"\"");
        return LOGTK_ERR_IO;
    }
    /* A device or FIFO (/dev/null, a named pipe) cannot be replaced: write to it
     * directly.  So is a process's open file named through /proc
     * (/dev/stdout, /dev/fd/3, /proc/self/fd/1): replacing the file behind it
     * would leave the descriptor on the old one.  Another symlink is followed,
     * so the link itself survives; one that does not resolve is written through
     * (never replaced by a file of its own). */
    struct stat st, lst;
    char *resolved = NULL;
    if (names_open_file(path))
        return open_direct(o, path, 1, err);
    if ((stat(path, &st) == 0 && !S_ISREG(st.st_mode)) ||
        (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && !(resolved = realpath(path, NULL))))
        return open_direct(o, path, 0, err);
    if (resolved)
        path = resolved;
    n = strlen(path);
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0; /* includes the slash */
    const char *base = path + dirlen;
    /* dir + "." + base + ".XXXXXX" + NUL */
    size_t tmplen = dirlen + 1 + strlen(base) + 7 + 1;
    o->path = strdup(path);
    o->tmp_path = malloc(tmplen);
    if (!o->path || !o->tmp_path) {
        free(resolved);
        free(o->path);
        free(o->tmp_path);
        o->path = o->tmp_path = NULL;
        if (err)
            return ltk_error_set(err, LOGTK_ERR_NOMEM, "%s: out of memory", path);
        return LOGTK_ERR_NOMEM;
    }
    memcpy(o->tmp_path, path, dirlen);
    snprintf(o->tmp_path + dirlen, tmplen - dirlen, ".%s.XXXXXX", base);
    free(resolved);
    path = o->path;

    int fd = mkstemp(o->tmp_path);
    if (fd < 0) {
        int rc = set_io_error(err, o->path, errno);
        free(o->path);
        free(o->tmp_path);
        o->path = o->tmp_path = NULL;
        return rc;
    }
    logtk_temporary_add(o->tmp_path); /* when the registry is full, only signals leave it */
    if (fchmod(fd, 0666 & ~current_umask()) != 0 || (o->fp = fdopen(fd, "w")) == NULL) {
        int rc = set_io_error(err, o->path, errno);
        close(fd);
        unlink(o->tmp_path);
        logtk_temporary_remove(o->tmp_path);
        free(o->path);
        free(o->tmp_path);
        o->path = o->tmp_path = NULL;
        return rc;
    }
    /* stdio's buffer is st_blksize (4 KiB): 13,000 write calls for a 53 MB
     * table of 200,000 rows.  A larger one cuts the system time of writing;
     * without it (no memory) the default buffer still works. */
    if ((o->buffer = malloc(OUTFILE_BUFFER_SIZE)) != NULL &&
        setvbuf(o->fp, o->buffer, _IOFBF, OUTFILE_BUFFER_SIZE) != 0) {
        free(o->buffer);
        o->buffer = NULL;
    }
    return LOGTK_OK;
}

int ltk_outfile_is_stdout(const ltk_outfile *o)
{
    return o->fp != NULL && o->path == NULL;
}

int ltk_outfile_write(ltk_outfile *o, const void *buf, size_t n, ltk_errbuf *err)
{
    if (o->fp == NULL) {
        if (err)
            return ltk_error_set(err, LOGTK_ERR_IO, "write to an output that is not open");
        return LOGTK_ERR_IO;
    }
    if (n && fwrite(buf, 1, n, o->fp) != n)
        return set_io_error(err, o->path, errno ? errno : EIO);
    return LOGTK_OK;
}

static void release(ltk_outfile *o)
{
    if (o->tmp_path)
        logtk_temporary_remove(o->tmp_path); /* renamed or removed by now */
    free(o->path);
    free(o->tmp_path);
    free(o->buffer); /* every path here has closed fp, or never gave it the buffer */
    o->fp = NULL;
    o->path = NULL;
    o->tmp_path = NULL;
    o->buffer = NULL;
    o->prepared = 0;
}

int ltk_outfile_prepare(ltk_outfile *o, ltk_errbuf *err)
{
    if (o->prepared)
        return LOGTK_OK;
    if (o->fp == NULL) {
        if (err)
            return ltk_error_set(err, LOGTK_ERR_IO, "commit of an output that is not open");
        return LOGTK_ERR_IO;
    }
    int e = 0;
    errno = 0;
    if (ferror(o->fp))
        e = errno ? errno : EIO;
    if (!e && fflush(o->fp) != 0)
        e = errno ? errno : EIO;
    if (o->tmp_path == NULL) { /* stdout or a device: written in place; commit closes */
        if (!e && ferror(o->fp))
            e = EIO;
        if (e) {
            int rc = set_io_error(err, o->path, e);
            ltk_outfile_abort(o);
            return rc;
        }
        o->prepared = 1;
        return LOGTK_OK;
    }
    if (!e && fsync(fileno(o->fp)) != 0 && errno != EINVAL && errno != EROFS)
        e = errno;
    if (fclose(o->fp) != 0 && !e)
        e = errno ? errno : EIO;
    o->fp = NULL;
    if (e) {
        int rc = set_io_error(err, o->path, e);
        ltk_outfile_abort(o);
        return rc;
    }
    o->prepared = 1;
    return LOGTK_OK;
}

int ltk_outfile_commit(ltk_outfile *o, ltk_errbuf *err)
{
    if (o->prepared) {
        int e = 0;
        if (o->tmp_path == NULL) {
            if ((fflush(o->fp) != 0 || ferror(o->fp)) && !e)
                e = errno ? errno : EIO;
            if (o->path && fclose(o->fp) != 0 && !e)
                e = errno ? errno : EIO;
        } else if (rename(o->tmp_path, o->path) != 0) {
            e = errno;
            unlink(o->tmp_path);
        }
        int rc = e ? set_io_error(err, o->path, e) : LOGTK_OK;
        release(o);
        return rc;
    }
    if (o->fp == NULL) {
        if (err)
            return ltk_error_set(err, LOGTK_ERR_IO, "commit of an output that is not open");
        return LOGTK_ERR_IO;
    }
    if (o->tmp_path == NULL) { /* stdout or a device: flush (and close a device) */
        errno = 0;
        int bad = fflush(o->fp) != 0 || ferror(o->fp);
        int e = errno ? errno : EIO;
        if (o->path && fclose(o->fp) != 0 && !bad) {
            bad = 1;
            e = errno ? errno : EIO;
        }
        int rc = bad ? set_io_error(err, o->path, e) : LOGTK_OK;
        release(o);
        return rc;
    }
    int e = 0;
    errno = 0;
    if (ferror(o->fp))
        e = errno ? errno : EIO;
    if (!e && fflush(o->fp) != 0)
        e = errno ? errno : EIO;
    if (!e && fsync(fileno(o->fp)) != 0 && errno != EINVAL && errno != EROFS)
        e = errno;
    if (fclose(o->fp) != 0 && !e)
        e = errno ? errno : EIO;
    o->fp = NULL;
    if (!e && rename(o->tmp_path, o->path) != 0)
        e = errno;
    if (e) {
        unlink(o->tmp_path);
        int rc = set_io_error(err, o->path, e);
        release(o);
        return rc;
    }
    release(o);
    return LOGTK_OK;
}

void ltk_outfile_abort(ltk_outfile *o)
{
    if (o->fp == NULL && o->tmp_path == NULL)
        return;
    if (o->tmp_path == NULL) { /* stdout or a device: nothing to undo */
        if (o->path && o->fp)
            fclose(o->fp);
        release(o);
        return;
    }
    if (o->fp)
        fclose(o->fp);
    unlink(o->tmp_path);
    release(o);
}
