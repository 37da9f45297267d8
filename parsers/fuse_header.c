/*
 * fuse_header.c - where a line's header (date, time, level, component,
 * program name) ends and its message starts, for the fuse parser.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuse_header.h"
#include "fuse_impl.h"

/*
 * Level words of every common logger, in any case ("INFO", "Info",
 * "notice", "WARNING"; java.util.logging's "FINE", "FINER", "FINEST";
 * "VERBOSE"; MySQL's and MariaDB's "[Note]"), and the one-letter levels of Android's logcat
 * ("D", "I", "W", "E", "V", "F"), upper case only: a lone lower-case letter
 * is a word.  A level in brackets ("[notice]") counts too.
 */
FUSE_INLINE int is_level_name(const char *s, size_t n);

/*
 * A module's level, the bracket's inside s[0..n) and its ':' at colon:
 * "ssl:info", "rewrite:trace3" (httpd 2.4's "[ssl:info]"; trace1 to trace8
 * too), ":error" when the module has no name.  Out of line: few header tokens are such a bracket.
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int is_module_level(const char *s, size_t n, const char *colon)
{
    if (colon != s && !is_letter(s[0]))
        return 0; /* (no module at all, httpd's "[:error]" for a module that names none) */
    n -= (size_t)(colon + 1 - s);
    s = colon + 1;
    if (n > 5 && s[n - 1] >= '0' && s[n - 1] <= '9' && (s[0] | 0x20) == 't')
        n--; /* (any digit: lines of one shape differ in their digits only, fuse_shape.h) */
    return is_level_name(s, n);
}

/* A level word, maybe in brackets, angles or parentheses ("[notice]", "<info>", "[ssl:info]", "(W)"). */
static int is_level_word(const char *s, size_t n)
{
    if (n >= 3 && ((s[0] == '[' && s[n - 1] == ']') || (s[0] == '<' && s[n - 1] == '>') ||
                   (s[0] == '(' && s[n - 1] == ')'))) { /* (qBittorrent's "(W)") */
        const char *colon = s[0] == '[' && n > 6 ? memchr(s, ':', n) : NULL;
        if (colon)
            return is_module_level(s + 1, n - 2, colon);
        s++;
        n -= 2;
    }
    return is_level_name(s, n);
}

int ltk_fuse_is_level_word(const char *s, size_t n)
{
    return n >= 2 && is_level_name(s, n);
}

/* A level word without brackets (see is_level_word). */
FUSE_INLINE int is_level_name(const char *s, size_t n)
{
    if (n == 1) /* glog's, logcat's; GlusterFS' and qBittorrent's "C" and "N" too */
        return s[0] == 'D' || s[0] == 'I' || s[0] == 'W' || s[0] == 'E' || s[0] == 'V' ||
               s[0] == 'F' || s[0] == 'C' || s[0] == 'N';
    /* by length (3 to 8), zero-padded to 8 bytes, so that a token is compared
       with few names a word at a time: every header token is tested.  The
       four-letter ones include the levels cut to four letters as loggers
       that align them print them: supervisord's "DEBG", "ERRO", "TRAC", "BLAT",
       Jetty's "DBUG", icecast's "EROR", Go's logrus "DEBU", "FATA", "PANI"; and cut to three,
       zerolog's and the NATS server's "DBG", "INF", "WRN", "TRC", "FTL",
       SpamAssassin's "dbg:" */
    static const char levels[6][14][8] = {
        {"err", "dbg", "inf", "wrn", "trc", "ftl"},
        {"info", "warn", "crit", "fine", "note", "erro", "eror", "debg", "dbug", "debu", "trac",
         "fata", "pani", "blat"},
        {"trace", "debug", "error", "fatal", "emerg", "alert", "finer"},
        {"notice", "severe", "finest"},
        {"warning", "verbose"},
        {"critical"},
    };
    if (n < 3 || n > 8)
        return 0;
    /* PostgreSQL's and PgBouncer's "LOG", in capitals only: "log" is a word */
    if (n == 3 && s[0] == 'L' && s[1] == 'O' && s[2] == 'G')
        return 1;
    char lower[8] = {0};
    for (size_t i = 0; i < n; i++) {
        if (!is_letter(s[i]))
            return 0;
        lower[i] = (char)(s[i] | 0x20);
    }
    for (size_t w = 0; w < 14 && levels[n - 3][w][0]; w++)
        if (memcmp(levels[n - 3][w], lower, 8) == 0)
            return 1;
    return 0;
}

/* Eight digits, read as a date of ISO 8601's basic format, "20261207" (year, month, day) where a time follows. */
static int is_basic_date(const char *s)
{
    for (size_t k = 0; k < 8; k++)
        if (s[k] < '0' || s[k] > '9')
            return 0;
    return 1; /* (not the month's and day's values: lines of one shape read alike, fuse_shape.h) */
}

/*
 * A date or a time, by the lengths of its digit groups: "hh:mm[:ss]" with
 * an optional fraction ("16:49:06", "18:01:47,978", "09:00:55.123"), a
 * date of a 2- or 4-digit group then one or two 1-2 digit groups joined by
 * '-' or '/' ("2015-10-18", "03-17", "17/06/09"), or a day and a month
 * before a four-digit year ("22-06-2014", "12/7/2026"), whatever time follows
 * ("2005-06-03-15.42.50.675872"), a four-digit year with dots
 * ("2005.11.09"), or a basic date joined to its time ("20261207-15:27:46");
 * one trailing ',' allowed.  Addresses ("10.0.0.1:80"),
 * versions ("1.2.3") and ratios ("1/2") do not have these shapes.  Every
 * header this rule looks for holds one, and a message practically never
 * starts with one, so it is what makes a prefix a header.
 */
static int is_date_or_time(const char *s, size_t n)
{
    if (n && s[n - 1] == ',')
        n--;
    /* the Common Log Format's "05/Dec/2026:04:10:00" (CUPS, web servers): a
       month's name between the day and the year, the time after a ':' */
    if (n >= 11 && s[0] >= '0' && s[0] <= '9' && (s[1] == '/' || s[2] == '/')) {
        const size_t m = s[1] == '/' ? 2 : 3;
        size_t k = m + 4;
        if (s[m - 1] == '/' && s[m + 3] == '/' && ltk_fuse_is_calendar_word(s + m, 3)) {
            while (k < m + 8 && k < n && s[k] >= '0' && s[k] <= '9')
                k++;
            if (k == m + 8 && (k == n || (s[k] == ':' && is_date_or_time(s + k + 1, n - k - 1))))
                return 1;
        }
    }
    /* ISO 8601's basic date joined to its time: xrdp's "20261207-15:27:46" */
    if (n >= 14 && (s[8] == '-' || s[8] == 'T' || s[8] == '_') && s[11] == ':' &&
        is_basic_date(s))
        return is_date_or_time(s + 9, n - 9);
    size_t len[4], ngroups = 0, i = 0;
    char sep[4];
    while (ngroups < 4) {
        size_t start = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == start)
            return 0;
        len[ngroups] = i - start;
        sep[ngroups] = i < n ? s[i] : 0;
        /* every shape below starts with 1 to 4 digits and one of ": - / ." (a
           time, a date, a year with dots): anything else is no date, without
           reading on ("25746", the hex of an id) */
        if (ngroups == 0 &&
            (len[0] > 4 || (sep[0] != ':' && sep[0] != '-' && sep[0] != '/' && sep[0] != '.')))
            return 0;
        ngroups++;
        if (i == n || ngroups == 4)
            break;
        i++; /* the separator */
    }
    if (ngroups < 2)
        return 0;
    if (sep[0] == ':') { /* a time: every group after the first two digits, a fraction last */
        if (len[0] > 2 || len[1] != 2)
            return 0;
        for (size_t g = 1; g + 1 < ngroups; g++)
            if (sep[g] != ':' && sep[g] != '.' && sep[g] != ',')
                return 0;
        return i == n || sep[ngroups - 1] == 0;
    }
    /* a date; a time may follow.  Month and day alone are written with '-'
       ("03-17 16:13:38"): two numbers joined by '/' are a ratio or a count
       ("req: 36/44", uWSGI's), which a date only looked like when its
       numbers had two digits each */
    if (sep[0] == '-' || sep[0] == '/') {
        if (ngroups == 2)
            return (len[0] == 2 || len[0] == 4) && len[1] <= 2 && i == n && sep[0] == '-';
        if (sep[1] != sep[0] || len[1] > 2)
            return 0;
        /* the year first ("2015-10-18", "17/06/09"), or last with four digits
           after the day and the month ("22-06-2014", "12/7/2026": Domino's,
           many a desktop and US program's) */
        return ((len[0] == 2 || len[0] == 4) && len[2] <= 2) || (len[0] <= 2 && len[2] == 4);
    }
    if (sep[0] == '.') /* a year with dots */
        return len[0] == 4 && ngroups >= 3 && len[1] == 2 && sep[1] == '.' && len[2] == 2;
    return 0;
}

/*
 * A level closed by a colon, in any case, maybe numbered as Slurm numbers
 * its debug levels: "error:", "debug:", "debug2:" (to debug5).  The colon
 * tells it from a message's word ("debug levels are ...").
 */
static int is_level_colon(const char *s, size_t n)
{
    if (n < 4 || s[n - 1] != ':')
        return 0;
    n--;
    if (s[n - 1] >= '0' && s[n - 1] <= '9')
        n--; /* "debug2", PostgreSQL's "DEBUG1" (any digit: a line of the same shape
                with another one reads the same, fuse_shape.h) */
    /* and PostgreSQL's level of its ordinary messages, "LOG:" */
    return is_level_word(s, n) || (n == 3 && memcmp(s, "LOG", 3) == 0);
}

/*
 * A word of three to nine capitals closed by its colon: in a level's place
 * (after a date and bracketed fields, fields_before_level), the line's
 * severity or kind, as a program names its own: PostgreSQL prints a
 * message's "DETAIL:", "HINT:", "CONTEXT:" and "STATEMENT:" lines there,
 * with the prefix of the message they follow ("... [9232] app@shop DETAIL:
 * ..."), so that prefix is the header on those lines too.
 */
static int is_capitals_field(const char *s, size_t n)
{
    return n >= 4 && n <= 10 && s[n - 1] == ':' && is_all_between(s, n - 1, 'A', 'Z');
}

/*
 * A debug level written as its bit mask in hex, in parentheses closed by a
 * colon: SSSD's "(0x0400):" after its component and function.
 */
static int is_hex_level(const char *s, size_t n)
{
    if (n < 6 || n > 14 || s[0] != '(' || s[1] < '0' || s[1] > '9' || s[2] != 'x' ||
        s[n - 1] != ':' || s[n - 2] != ')')
        return 0; /* ("0x": its digit's kind, as every header test reads digits) */
    for (size_t k = 3; k < n - 2; k++)
        if (!((s[k] >= '0' && s[k] <= '9') || (s[k] >= 'a' && s[k] <= 'f')))
            return 0;
    return 1;
}

/*
 * Fields between a date and a level closed by its colon, the last test of
 * a header: up to four names ("vm", "pacemakerd", "mysvc[42]") and tokens
 * in brackets or parentheses ("[28634]", "(crm_log_init)"), one of them
 * at least, then the level ("info:", "debug:"); words alone before a level
 * are a message's ("Task handler raised error: ...", "rsync error: ...").
 * Returns the tokens up to and with the level from t[0], 0 when t[from..]
 * is no such run.
 */
static int is_sentence_word(const char *s, size_t n);

static size_t fields_before_level(const logtk_slice *t, size_t from, size_t limit)
{
    /* the first token closed by a colon, the level's place (most lines have
       none there: one byte a token) */
    size_t level = from + 1;
    while (level < limit && level < from + 5 && t[level].ptr[t[level].len - 1] != ':')
        level++;
    if (level >= limit || level >= from + 5)
        return 0;
    int bracketed = 0, sentence = 0;
    for (size_t k = from; k < level; k++) {
        const char *s = t[k].ptr;
        const size_t len = t[k].len;
        const char close = s[0] == '[' ? ']' : s[0] == '(' ? ')' : s[0] == '<' ? '>' : 0;
        if (close ? len < 3 || s[len - 1] != close
                  : !(is_name_of(s, len, "._-/@[]") ||
                      (len > 1 && s[0] == '/' && is_name_of(s + 1, len - 1, "._-/@[]"))))
            return 0;
        sentence |= !close && is_sentence_word(s, len);
        bracketed |= close != 0;
    }
    /* (a level in parentheses is bracketed itself: Puppet's "Puppet (debug):",
       "/Stage[main]/Main/Exec[ok2]/returns (notice):") */
    bracketed |= t[level].ptr[0] == '(';
    /* (a word in capitals after a capital and small letters is a sentence's:
       Janus' "[date] [3876173331372960] Peer video SSRC: 162850259"; a level
       word is a level after a source's name, "Puppet (debug):") */
    return bracketed && (is_level_colon(t[level].ptr, t[level].len) ||
                         (is_capitals_field(t[level].ptr, t[level].len) && !sentence) ||
                         is_hex_level(t[level].ptr, t[level].len))
               ? level + 1
               : 0;
}

/*
 * A date opening the line in parentheses closed by "):", the time maybe
 * with its fraction after a ':' (SSSD's "(2026-12-07 17:45:44:089777):
 * [sssd] [check_file] (0x0400): ..."): its tokens (2), or 0.
 */
static size_t parenthesized_date(const logtk_slice *t, size_t n)
{
    if (n < 3 || t[0].len < 9 || t[0].ptr[0] != '(' || t[1].len < 7 ||
        t[1].ptr[t[1].len - 1] != ':' || t[1].ptr[t[1].len - 2] != ')')
        return 0;
    return is_date_or_time(t[0].ptr + 1, t[0].len - 1) &&
                   is_date_or_time(t[1].ptr, t[1].len - 2)
               ? 2
               : 0;
}

/* See fuse_header.h. */
int ltk_fuse_is_zone_name(const char *s, size_t n)
{
    if (n < 3 || n > 4 || !is_all_between(s, n, 'A', 'Z'))
        return 0;
    /* the abbreviations in use, not any capitals ending in 'T': words in
       capitals are ("NOT using IPv6", pdns_recursor's; "GET", "POST", "EXIT",
       and levels cut to four letters, "CRIT", "BLAT") */
    static const char zones3[] = "UTC GMT EST EDT CST CDT MST MDT PST PDT AST ADT HST CET EET "
                                 "WET BST IST JST KST HKT SGT ICT PHT WAT CAT EAT MSK ";
    static const char zones4[] = "CEST EEST WEST AEST AEDT ACST ACDT AWST NZST NZDT AKST AKDT "
                                 "SAST HKST ";
    const char *list = n == 3 ? zones3 : zones4;
    for (const char *z = list; *z; z += n + 1)
        if (memcmp(z, s, n) == 0)
            return 1;
    return 0;
}

/* "AM" or "PM", any case: the half of the day after a 12-hour time. */
static int is_half_day(const char *s, size_t n)
{
    return n == 2 && ((s[0] | 0x20) == 'a' || (s[0] | 0x20) == 'p') && (s[1] | 0x20) == 'm';
}

/* A month or weekday name, any case ("Jul", "SUN"). */
FUSE_INLINE int is_calendar_any_case(const char *s, size_t n)
{
    if (n != 3 || !is_letter(s[0]))
        return 0;
    char w[3] = {(char)(s[0] & ~0x20), (char)(s[1] | 0x20), (char)(s[2] | 0x20)};
    return ltk_fuse_is_calendar_word(w, 3);
}

/* Letters, digits and ". - _ / @" only (a host, a node, a file name). */
static int is_name_chars(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_alnum_byte(s[i]) && s[i] != '.' && s[i] != '-' && s[i] != '_' && s[i] != '/' &&
            s[i] != '@')
            return 0;
    return n > 0;
}

/*
 * A name, one ':' and a second name that starts with a letter: a host's (or
 * service's) module as a logger names its source, "example.test:presence",
 * "conference.example.test:muc"; "10.0.0.1:8080" is an address and its port.
 */
static int is_host_module(const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    if (colon == NULL || colon == s || (size_t)(colon - s) + 1 >= n || !is_letter(colon[1]))
        return 0;
    const size_t at = (size_t)(colon - s);
    return is_name_chars(s, at) && is_name_chars(colon + 1, n - at - 1);
}

/*
 * The component closing a header: a name and a colon, the name optionally
 * followed by bracketed parts ("sshd:", "kernel[0]:", "sshd(pam_unix)[42]:",
 * "org.apache.Foo$Bar:", "com.apple.CDScheduler[43]:"; in angle brackets,
 * Dovecot's process, pid and session, "imap(bob@example.test)<2469><Fjt/Gt>:").
 * It starts with a letter, or is a program's path as it ran (its argv[0],
 * amavisd's "/usr/sbin/amavisd[11913]:"); "::" and "name:value" are not
 * components.
 */
static int is_component(const char *s, size_t n)
{
    if (n < 2 || s[n - 1] != ':' || s[n - 2] == ':' ||
        !(is_letter(s[0]) || (s[0] == '/' && n > 2 && is_letter(s[1]))))
        return 0;
    n--;
    size_t i = 0;
    while (i < n && (is_alnum_byte(s[i]) || s[i] == '.' || s[i] == '-' || s[i] == '_' ||
                     s[i] == '$' || s[i] == '/'))
        i++;
    while (i < n && (s[i] == '(' || s[i] == '[' || s[i] == '<')) {
        char close = s[i] == '(' ? ')' : s[i] == '[' ? ']' : '>';
        i++;
        while (i < n && s[i] != close && s[i] != ' ')
            i++;
        if (i == n)
            return 0;
        i++;
    }
    return i == n;
}

/*
 * An Erlang process as its logger prints it after the level, three numbers
 * in angle brackets, maybe with the module, function and line that logged
 * glued after an '@': RabbitMQ's "[notice] <0.223.0> Logging: ...",
 * ejabberd's "[info] <0.123.0>@ejabberd_config:load/1:82 Loading ...".
 */
static int is_erlang_process(const char *s, size_t n)
{
    if (n < 7 || s[0] != '<')
        return 0;
    size_t i = 1;
    for (int part = 0; part < 3; part++) {
        const size_t from = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == from || i == n || s[i] != (part < 2 ? '.' : '>'))
            return 0;
        i++;
    }
    return i == n || (s[i] == '@' && i + 1 < n);
}

/* A process id in brackets or parentheses closed by a colon: "[31774]:", radvd's "(19735):". */
static int is_pid_colon(const char *s, size_t n)
{
    return n >= 4 && ((s[0] == '[' && s[n - 2] == ']') || (s[0] == '(' && s[n - 2] == ')')) &&
           s[n - 1] == ':' && is_all_between(s + 1, n - 3, '0', '9');
}

/* A process and thread id joined by '#' and closed by a colon, nginx's "23181#23181:". */
static int is_pid_tid_colon(const char *s, size_t n)
{
    const char *hash = n >= 4 && s[n - 1] == ':' ? memchr(s, '#', n) : NULL;
    return hash && hash > s && hash + 2 < s + n &&
           is_all_between(s, (size_t)(hash - s), '0', '9') &&
           is_all_between(hash + 1, (size_t)(s + n - 1 - hash - 1), '0', '9');
}

/*
 * A dotted component name without a colon ("nova.osapi_compute.wsgi.server"):
 * letters, digits and '_' in three or more dot-separated parts, a letter
 * first.  Only taken right after a level word.
 */
static int is_dotted_component(const char *s, size_t n)
{
    if (!n || !is_letter(s[0]) || s[n - 1] == '.')
        return 0;
    size_t dots = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.') {
            if (s[i - 1] == '.')
                return 0;
            dots++;
        } else if (!is_alnum_byte(s[i]) && s[i] != '_' && s[i] != '$') {
            return 0;
        }
    }
    return dots >= 2;
}

/* Nonzero when the token is a lone "-", the separator loggers print. */
static int is_dash(const logtk_slice *t)
{
    return t->len == 1 && t->ptr[0] == '-';
}

/* A key and its value in one token: a letter, name bytes, '=', something ("p=10754"). */
static int is_field_of_key(const logtk_slice *t)
{
    const char *eq = t->len > 2 ? memchr(t->ptr, '=', t->len) : NULL;
    return eq && eq > t->ptr && eq + 1 < t->ptr + t->len && is_letter(t->ptr[0]) &&
           is_name_of(t->ptr, (size_t)(eq - t->ptr), "._-");
}

/*
 * Token i, a name and its ':', and one number after it are the whole line:
 * a key and its value (xrdp's settings, "[DEBUG] ls_width:   350"), not a
 * program's or a logger's name before its message.
 */
static int keys_last_number(const logtk_slice *t, size_t i, size_t n)
{
    if (i + 2 != n || t[i].ptr[t[i].len - 1] != ':' || memchr(t[i].ptr, '[', t[i].len) ||
        is_level_colon(t[i].ptr, t[i].len))
        return 0; /* ("INFO: primary_timeline=2": a level and its message) */
    /* (not a function and its offset, a stack frame: the kernel's "vm
       kernel: dump_stack_lvl+0x59/0x90" is a message after its program) */
    const char *plus = memchr(t[i + 1].ptr, '+', t[i + 1].len);
    if (plus && plus > t[i + 1].ptr && plus + 2 < t[i + 1].ptr + t[i + 1].len && plus[1] == '0' &&
        plus[2] == 'x')
        return 0;
    /* (or an id holding digits: NATS' "[INF]   ID:       NDJ5J3...") */
    for (size_t k = 0; k < t[i + 1].len; k++)
        if (t[i + 1].ptr[k] >= '0' && t[i + 1].ptr[k] <= '9')
            return 1;
    return 0;
}

/* A name and its process id in brackets, closed by a colon: syslog's tag, "sshd[5174]:". */
static int is_pid_tag(const char *s, size_t n)
{
    size_t open = n >= 5 && s[n - 2] == ']' ? n - 2 : 0; /* the last '[' */
    while (open > 0 && s[open] != '[')
        open--;
    return open > 0 && is_pid_colon(s + open, n - open) && is_component(s, n);
}

/*
 * Nonzero when s[0..n) is a program's name and its process id in brackets,
 * no colon after them ("ICECC[13606]"): a letter, name bytes, '[', digits, ']'.
 */
static int is_bare_pid_tag(const char *s, size_t n)
{
    if (n < 4 || s[n - 1] != ']' || !((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z'))
        return 0;
    const char *open = memchr(s, '[', n);
    if (open == NULL || open + 2 >= s + n)
        return 0;
    const size_t name = (size_t)(open - s), digits = n - name - 2;
    return is_name_chars(s, name) && is_all_between(open + 1, digits, '0', '9');
}

/*
 * A verb's past participle in small letters closed by a colon, "spawned:",
 * "exited:", "stopped:": after a level, the message's first word (what
 * happened, supervisord's "INFO spawned: 'web' with pid 12472"), not a
 * logger's name, which names a thing ("root:", "urllib3:"); "-eed" ends
 * nouns ("feed:", "speed:").  Capitalized too ("Reloaded: accounts",
 * NATS').  With a qualifier in brackets before the colon, a participle in
 * "-ed" or "-ing" (Prosody's stanza dumps, "Sending[c2s]:",
 * "Received[component]:"); without one a capitalized word in "-ing" names
 * a logger ("Shipping:", "Billing:").
 */
static int is_past_participle_colon(const char *s, size_t n)
{
    if (n < 7 || s[n - 1] != ':')
        return 0;
    n--;
    int qualified = 0;
    if (s[n - 1] == ']') { /* "Received[c2s]": the word before the bracket */
        const char *open = memchr(s, '[', n);
        if (open == NULL || open == s)
            return 0;
        n = (size_t)(open - s);
        qualified = 1;
    }
    const size_t from = s[0] >= 'A' && s[0] <= 'Z'; /* ("Reloaded:", NATS') */
    if (n < 6 || !is_all_between(s + from, n - from, 'a', 'z'))
        return 0;
    if (s[n - 1] == 'd' && s[n - 2] == 'e' && s[n - 3] != 'e')
        return 1;
    return qualified && n >= 7 && s[n - 1] == 'g' && s[n - 2] == 'n' && s[n - 3] == 'i';
}

/* "(**)", "(==)", "(++)", "(--)", "(II)", "(WW)", "(EE)", "(NI)", "(??)": Xorg.log's marks. */
static int is_x_server_mark(const char *s, size_t n)
{
    static const char marks[] = "**==++--IIWWEENI??";
    if (n != 4 || s[0] != '(' || s[3] != ')')
        return 0;
    for (size_t k = 0; k < sizeof marks - 1; k += 2)
        if (s[1] == marks[k] && s[2] == marks[k + 1])
            return 1;
    return 0;
}

/* Ten digits of seconds since the epoch, a fraction, a colon: "1796666628.067769:". */
static int is_epoch_colon(const char *s, size_t n)
{
    if (n < 13 || n > 21 || s[10] != '.' || s[n - 1] != ':')
        return 0; /* (which digits, never: lines of one shape read alike) */
    return is_all_between(s, 10, '0', '9') && is_all_between(s + 11, n - 12, '0', '9');
}

/* A name and seconds with their fraction in brackets, closed by a colon: "ptp4l[32489.877]:". */
static int is_time_tag(const char *s, size_t n)
{
    const char *open = memchr(s, '[', n);
    if (open == NULL || open == s || n < 8 || s[n - 2] != ']' || s[n - 1] != ':')
        return 0;
    const char *dot = memchr(open, '.', (size_t)(s + n - open));
    return dot != NULL && dot > open + 1 && dot < s + n - 3 &&
           is_all_between(open + 1, (size_t)(dot - open - 1), '0', '9') &&
           is_all_between(dot + 1, (size_t)(s + n - 3 - dot), '0', '9');
}

/*
 * A facility and a level in angle brackets, both numbers or both names:
 * "<4.3>", "<auth.info>" (FreeBSD's syslogd -v, -vv).
 */
static int is_facility_level(const char *s, size_t n)
{
    if (n < 5 || n > 24 || s[0] != '<' || s[n - 1] != '>')
        return 0;
    const char *dot = memchr(s, '.', n);
    if (dot == NULL || dot == s + 1 || dot == s + n - 2)
        return 0;
    const size_t a = (size_t)(dot - s) - 1, b = n - 3 - a;
    return (is_all_between(s + 1, a, '0', '9') && is_all_between(dot + 1, b, '0', '9')) ||
           (is_all_between(s + 1, a, 'a', 'z') && is_all_between(dot + 1, b, 'a', 'z'));
}

/* A capital, then small letters only ("Order", "Sync"): how a sentence opens, not a host. */
static int is_sentence_word(const char *s, size_t n)
{
    if (n < 2 || s[0] < 'A' || s[0] > 'Z')
        return 0;
    for (size_t k = 1; k < n; k++)
        if (s[k] < 'a' || s[k] > 'z')
            return 0;
    return 1;
}

/*
 * 3 when t[i..] is "pid", a process id closed by its colon and a level closed
 * by its colon, 0 otherwise: pgpool's "2026-12-07 16:02:37: pid 26522:
 * DEBUG:  msg" (the time closed by its colon ends the header before them).
 */
static size_t pid_and_level(const logtk_slice *t, size_t i, size_t n)
{
    if (i + 3 >= n || t[i].len != 3 || memcmp(t[i].ptr, "pid", 3) != 0 || t[i + 1].len < 2 ||
        t[i + 1].ptr[t[i + 1].len - 1] != ':' ||
        !is_all_between(t[i + 1].ptr, t[i + 1].len - 1, '0', '9'))
        return 0;
    return is_level_colon(t[i + 2].ptr, t[i + 2].len) ? 3 : 0;
}

/* A word of two to eight capitals in angle brackets ("<RMT>", "<INFO>"). */
static int is_angle_capitals(const char *s, size_t n)
{
    return n >= 4 && n <= 10 && s[0] == '<' && s[n - 1] == '>' &&
           is_all_between(s + 1, n - 2, 'A', 'Z');
}

/* Tokens from `from` up to the one closing the bracket opened there (within 8), or 0. */
static size_t bracket_span(const logtk_slice *t, size_t from, size_t n, int *dated);

/*
 * Token i, after a level, is a logger's name joined by '.', '_' or '-' ("glance_store.multi_backend",
 * "keystone-wsgi-public", "py.warnings") and a bracket opens the token after it: the
 * context oslo.log prints after the logger ("[-]", "[None req-51c2... - - - - - -]").
 * A name of one piece is a message's word ("INFO Found [3] items").
 */
static int logger_before_context(const logtk_slice *t, size_t i, size_t limit)
{
    const char *s = t[i].ptr;
    const size_t len = t[i].len;
    int dated;
    if (i + 2 >= limit || t[i + 1].ptr[0] != '[' || len < 4 || !is_letter(s[0]) ||
        !is_name_of(s, len, "._-") || s[len - 1] == '.' || s[len - 1] == '-' ||
        (!memchr(s, '.', len) && !memchr(s, '_', len) && !memchr(s, '-', len)))
        return 0;
    /* (in small letters: a constant's name in capitals is a message's id, Kea's
       "ALLOC_ENGINE_V4_LEASE_RECLAIM [hwtype=1 ...]") */
    size_t k = 0;
    while (k < len && !(s[k] >= 'a' && s[k] <= 'z'))
        k++;
    if (k == len)
        return 0;
    const size_t span = bracket_span(t, i + 1, limit, &dated);
    return span != 0 && i + 1 + span < limit && !dated;
}

static size_t bracket_span(const logtk_slice *t, size_t from, size_t n, int *dated)
{
    if (t[from].ptr[0] != '[')
        return 0;
    *dated = 0;
    for (size_t k = from; k < n && k < from + 8; k++) {
        const char *s = t[k].ptr;
        size_t len = t[k].len;
        if (k == from)
            s++, len--;
        /* (closed by "]:" too: Roundcube's "[22-Jan-2013 22:28:21 +0200]: msg") */
        if (len > 1 && s[len - 1] == ':' && s[len - 2] == ']')
            len--;
        int closes = len > 0 && s[len - 1] == ']';
        if (closes)
            len--;
        if (is_date_or_time(s, len))
            *dated = 1;
        if (closes)
            return k - from + 1;
    }
    return 0;
}

/* A token of the bracketed span t[from .. from + span) is a level word ("[D", "INFO]"). */
static int span_holds_level(const logtk_slice *t, size_t from, size_t span)
{
    for (size_t k = from; k < from + span; k++) {
        const char *s = t[k].ptr;
        size_t len = t[k].len;
        if (k == from)
            s++, len--;
        if (k + 1 == from + span && len > 0 && s[len - 1] == ']')
            len--;
        if (len > 0 && is_level_word(s, len))
            return 1;
    }
    return 0;
}

/*
 * The tokens from t[from] up to a dated bracket that a quoted field follows,
 * when they are one or two names or "-" (is_name_chars), or 0: the
 * ident or virtual host and the user of the Common Log Format.
 */
static size_t common_log_fields(const logtk_slice *t, size_t from, size_t limit)
{
    size_t k = from;
    while (k < from + 2 && k < limit && is_name_chars(t[k].ptr, t[k].len))
        k++;
    int dated = 0;
    const size_t span = k > from && k < limit ? bracket_span(t, k, limit, &dated) : 0;
    if (!span && k > from && k + 2 < limit && is_date_or_time(t[k].ptr, t[k].len)) {
        /* the date without its brackets, and its zone's offset: calibre's
           "127.0.0.1 port-44204 alice 07/Dec/2026:21:19:42 +0000 \"GET / ...\"" */
        size_t j = k + 1;
        if (t[j].len == 5 && (t[j].ptr[0] == '+' || t[j].ptr[0] == '-') &&
            is_all_between(t[j].ptr + 1, 4, '0', '9'))
            j++;
        return j < limit && t[j].ptr[0] == '"' ? k - from : 0;
    }
    if (!span || !dated || k + span >= limit || t[k + span].ptr[0] != '"')
        return 0;
    return k - from;
}

/*
 * Whether the bracketed span t[from .. from + span) is a run of fields glued
 * together, "][" between them: "[2026-12-05T06:19:29.332+0000][4ms][info][gc]"
 * and "[0.005s][info ][gc,heap  ]", as the JVM's unified logging prints its
 * decorations (padded with blanks, so one run may be several tokens).  *level
 * is set when one of its fields is a level word.
 */
static int glued_fields(const logtk_slice *t, size_t from, size_t span, int *level)
{
    char field[8]; /* the current field's first bytes, blanks left out */
    size_t flen = 0, slash = 0; /* slash: the field's first '/', when one (a level/component) */
    int glued = 0;
    *level = 0;
    for (size_t k = from; k < from + span; k++) {
        const char *s = t[k].ptr;
        const size_t len = t[k].len;
        for (size_t b = k == from; b < len; b++) {
            const int last = k + 1 == from + span && b + 1 == len;
            if (s[b] == ']' && (last || (b + 1 < len && s[b + 1] == '['))) {
                /* the field a level, or a level and its component joined by
                   '/' (lldpd's "[ DBG/main]", Celery's "INFO/MainProcess") */
                const size_t word = slash ? slash : flen;
                if (word <= sizeof field && is_level_word(field, word))
                    *level = 1;
                flen = slash = 0;
                if (!last) {
                    glued = 1;
                    b++;
                }
            } else if (s[b] != ' ' && s[b] != '\t') {
                if (s[b] == '/' && slash == 0 && flen > 0)
                    slash = flen;
                if (flen < sizeof field)
                    field[flen] = s[b];
                flen++;
            }
        }
    }
    return glued;
}

/*
 * The seconds since the system (or the server) started, in brackets, with
 * their fraction: the Linux kernel's printk time, "[    0.000000]" and
 * "[12345.678901]", and the X server's "[  1036.193]".  They are padded with
 * blanks to a width, so the same message is one token or two apart by
 * how long the machine has run; a time, and so the header's.  t[from]
 * opens with '[' (the callers test it: most lines' first byte is not).
 * Returns the tokens it spans from `from` (1 or 2), 0 when it is none.
 */
static size_t uptime_span(const logtk_slice *t, size_t from, size_t n)
{
    assert(from < n && t[from].ptr[0] == '[');
    size_t k = from;
    const char *s = t[k].ptr + 1;
    size_t len = t[k].len - 1;
    if (len == 0) { /* "[" and "0.000000]": the padding split them */
        if (++k >= n)
            return 0;
        s = t[k].ptr;
        len = t[k].len;
    }
    if (len < 5 || s[len - 1] != ']')
        return 0;
    len--;
    size_t i = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i == 0 || i > 10 || i + 4 > len || s[i] != '.' || len - i - 1 > 9)
        return 0; /* a fraction of 3 to 9 digits: milliseconds to nanoseconds */
    for (size_t f = i + 1; f < len; f++)
        if (s[f] < '0' || s[f] > '9')
            return 0;
    return k - from + 1;
}

/*
 * A source location closing a header, s[0..n) being "name.ext:123]": a
 * name (no blank), ':', the line's digits and the ']' that ends glog's
 * header.
 */
static int is_location_bracket(const char *s, size_t n)
{
    if (n < 5 || s[n - 1] != ']')
        return 0;
    size_t d = n - 1;
    while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
        d--;
    return d >= 2 && d < n - 1 && s[d - 1] == ':';
}

/*
 * glog's header (Google's C++ logging, and klog, Kubernetes' components):
 * "I1207 11:45:23.657765    2126 server.go:123] msg", the level's letter
 * and the month and day, the time, the thread and the source location up
 * to ']'.  Returns 4 (the header's tokens) when t opens with one, else 0.
 */
static size_t glog_header(const logtk_slice *t, size_t n)
{
    if (n < 5 || t[0].len != 5 || !is_level_name(t[0].ptr, 1) ||
        !is_all_between(t[0].ptr + 1, 4, '0', '9') || !is_date_or_time(t[1].ptr, t[1].len) ||
        !is_all_between(t[2].ptr, t[2].len, '0', '9') || !is_location_bracket(t[3].ptr, t[3].len))
        return 0;
    return 4;
}

/*
 * Chromium's header, one token: "[2126:2126:1207/114523.657765:INFO:
 * chrome/app/x.cc:210]" (process, thread, month and day '/' time, level,
 * source location; "VERBOSE1" to "VERBOSE9" for --v; older builds close with
 * "x.cc(210)]").  Nonzero when s[0..n) is one.
 */
static int is_chromium_header(const char *s, size_t n)
{
    if (n < 24 || s[0] != '[' || s[n - 1] != ']' || (s[1] < '0' || s[1] > '9'))
        return 0;
    /* the fields up to the level: digits, digits, "mmdd/hhmmss.uuuuuu" */
    size_t i = 1, field = 0;
    while (field < 3) {
        size_t from = i;
        while (i < n && s[i] != ':')
            i++;
        if (i >= n)
            return 0;
        const int fits = field < 2 ? is_all_between(s + from, i - from, '0', '9')
                                   : i - from >= 11 && s[from + 4] == '/' &&
                                         is_all_between(s + from, 4, '0', '9');
        if (!fits)
            return 0;
        i++;
        field++;
    }
    size_t from = i;
    while (i < n && s[i] != ':')
        i++;
    if (i >= n)
        return 0;
    size_t len = i - from;
    if (len == 8 && memcmp(s + from, "VERBOSE", 7) == 0 && s[from + 7] >= '0' && s[from + 7] <= '9')
        return 1;
    return is_level_name(s + from, len);
}

/*
 * A diagnostic's location opening a line, "core/reader.c:1150:38:": GNU's
 * "file:line:column: message", as compilers, linters and checkers print
 * it.  A path whose last piece has a name and an extension of letters, a
 * line number, maybe a column, and a colon.
 */
static int is_diagnostic_location(const char *s, size_t n)
{
    if (n < 6 || s[n - 1] != ':')
        return 0;
    size_t end = n - 1; /* the colon closing the path, once the numbers are read */
    int numbers = 0;
    while (numbers < 2) {
        size_t d = end;
        while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
            d--;
        if (d == end || d < 2 || s[d - 1] != ':')
            break;
        numbers++;
        end = d - 1;
    }
    size_t dot = end;
    while (dot > 0 && is_letter(s[dot - 1]))
        dot--;
    if (!numbers || end - dot > 5 || dot == end || dot < 2 || s[dot - 1] != '.' ||
        !is_alnum_byte(s[dot - 2]))
        return 0;
    for (size_t k = 0; k + 1 < dot; k++)
        if (!is_alnum_byte(s[k]) && s[k] != '.' && s[k] != '_' && s[k] != '-' && s[k] != '/' &&
            s[k] != '+')
            return 0;
    return 1;
}

/*
 * The bytes of a number, an id, a node or file name with a number (letters,
 * digits and ". - _ / @ : , +"), and which of them are digits: the class of
 * each byte, so that a header word is read with one lookup a byte.
 */
enum { VALUE_BYTE = 1, DIGIT_BYTE = 2 };
static const unsigned char value_byte[256] = {
    ['+'] = VALUE_BYTE, [','] = VALUE_BYTE, ['-'] = VALUE_BYTE, ['.'] = VALUE_BYTE,
    ['/'] = VALUE_BYTE, [':'] = VALUE_BYTE, ['@'] = VALUE_BYTE, ['_'] = VALUE_BYTE,
    ['0'] = 3, ['1'] = 3, ['2'] = 3, ['3'] = 3, ['4'] = 3,
    ['5'] = 3, ['6'] = 3, ['7'] = 3, ['8'] = 3, ['9'] = 3,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1,
    ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
    ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1,
    ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1,
    ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
    ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
    ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

/*
 * The length of the syslog priority opening s[0..n), "<" one to three
 * digits ">" ("<134>", RFC 3164 and 5424: facility * 8 + severity), or 0.
 * A message read off the wire or a raw socket keeps it glued to the date
 * ("<134>Dec  5 01:12:58 haproxy[1918]: ...").
 */
static size_t priority_length(const char *s, size_t n)
{
    /* (or a level's capital, glued to the date after it: Mumble's
       "<W>2026-12-07 20:58:46.123 1 => ...") */
    if (n > 4 && s[1] >= 'A' && s[1] <= 'Z' && s[2] == '>' && is_level_name(s + 1, 1) &&
        s[3] >= '0' && s[3] <= '9')
        return 3;
    size_t k = 1;
    while (k < n && k < 4 && s[k] >= '0' && s[k] <= '9')
        k++;
    return k > 1 && k < n && s[k] == '>' ? k + 1 : 0;
}

/*
 * The header of a message in the syslog protocol (RFC 5424), "<34>1
 * 2026-12-05T01:12:17.003Z mymachine su 77 ID47 - su root failed": the
 * priority and version, the timestamp, host, application, process id,
 * message id ("-" for none) and structured data ("-", or "[id k=\"v\"...]"
 * elements up to the "]" closing a token).  Returns its number of tokens,
 * or 0 when the line does not open so.
 */
static size_t syslog_protocol_header(const logtk_slice *t, size_t n)
{
    if (n < 7 || t[0].len < 4 || t[0].ptr[0] != '<')
        return 0;
    const size_t pri = priority_length(t[0].ptr, t[0].len);
    if (pri == 0 || pri + 1 != t[0].len || t[0].ptr[pri] < '1' || t[0].ptr[pri] > '9' ||
        !is_date_or_time(t[1].ptr, t[1].len > 10 ? 10 : t[1].len))
        return 0; /* "<34>1", then a date ("2026-12-05T..." opens with one) */
    const logtk_slice *sd = &t[6];
    if (is_dash(sd))
        return 7;
    if (sd->ptr[0] != '[')
        return 0;
    for (size_t k = 6; k < n; k++)
        if (t[k].ptr[t[k].len - 1] == ']')
            return k + 1;
    return 0;
}

/*
 * Nonzero when s[0..n) is an IPv4 address closed by a colon ("127.0.0.3:"):
 * after the date, the peer a message is about (knockd's "[date] 127.0.0.3:
 * openSSH: Stage 1"), not a header's field; a host so written has no colon.
 */
static int is_address_colon(const char *s, size_t n)
{
    size_t i = 0, parts = 0;
    if (n < 8 || s[n - 1] != ':')
        return 0;
    while (parts < 4) {
        size_t d = 0;
        while (i + d < n - 1 && d < 4 && s[i + d] >= '0' && s[i + d] <= '9')
            d++;
        if (d == 0 || d > 3)
            return 0;
        i += d;
        parts++;
        if (parts < 4) {
            if (i >= n - 1 || s[i] != '.')
                return 0;
            i++;
        }
    }
    return i == n - 1;
}

/*
 * Nonzero when s[0..n) is a protocol and its version ("HTTP/1.1", "SIP/2.0"):
 * a message's word (thin's "2026-12-07 20:22:34 +0000 HTTP/1.1 200 OK"), no
 * header field.
 */
static int is_protocol_version(const char *s, size_t n)
{
    size_t k = 0;
    while (k < n && s[k] >= 'A' && s[k] <= 'Z')
        k++;
    if (k < 2 || k + 1 >= n || s[k] != '/' || s[k + 1] < '0' || s[k + 1] > '9')
        return 0;
    return is_all_between(s + k + 1, n - k - 1, '.', '9') && memchr(s + k + 1, '/', n - k - 1) == NULL;
}

/*
 * Tokens of the message's identifier in brackets at t[i], right after a
 * program's component, else 0: FRRouting's "BGP: [MQAC4-8G3WW] Creating
 * ...", a code of its source file and format (capitals and digits, a '-'
 * in it), with its error code glued after it ("[MJ4D6-VBJKV][EC 33554454]"),
 * and Solaris' "sshd[412]: [ID 800047 auth.info] Accepted ...".  Printed by
 * the logging call, as a level is, so the header's: in the message it was
 * read as the message's first word ("<*>: Start" for four functions' "f:
 * Start" lines).
 */
static size_t message_id_span(const logtk_slice *t, size_t i, size_t n)
{
    const char *s = t[i].ptr;
    size_t len = t[i].len;
    /* Solaris: "[ID", its number, "facility.level]" */
    if (len == 3 && memcmp(s, "[ID", 3) == 0 && i + 3 < n &&
        is_all_between(t[i + 1].ptr, t[i + 1].len, '0', '9') && t[i + 2].len >= 4 &&
        t[i + 2].ptr[t[i + 2].len - 1] == ']' && memchr(t[i + 2].ptr, '.', t[i + 2].len))
        return 3;
    size_t k = 1, dash = 0, letters = 0;
    while (k < len && ((s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= '0' && s[k] <= '9') || s[k] == '-')) {
        dash += s[k] == '-';
        letters += s[k] >= 'A' && s[k] <= 'Z';
        k++;
    }
    if (k < 7 || k > 24 || k >= len || s[k] != ']' || dash == 0 || letters == 0 || s[1] == '-')
        return 0;
    if (k + 1 == len)
        return i + 1 < n ? 1 : 0;
    /* its error code glued after it: "[EC", the number and its ']' */
    if (len == k + 4 && memcmp(s + k + 1, "[EC", 3) == 0 && i + 2 < n && t[i + 1].len >= 2 &&
        t[i + 1].ptr[t[i + 1].len - 1] == ']' &&
        is_all_between(t[i + 1].ptr, t[i + 1].len - 1, '0', '9'))
        return 2;
    return 0;
}

/*
 * Where the header ends when a level's capital and '>' ("I>", "W>", "!>")
 * stands at t[i] or after one to three names of a thread before it, else 0.
 */
static size_t angle_level_at(const logtk_slice *t, size_t i, size_t limit)
{
    for (size_t k = i; k < limit && k < i + 4; k++) {
        const char *s = t[k].ptr;
        if (t[k].len == 2 && s[1] == '>' && (s[0] == '!' || (s[0] >= 'A' && s[0] <= 'Z' &&
                                                            is_level_name(s, 1))))
            return k + 1;
        if (!is_name_of(s, t[k].len, "._-/:@") || (s[0] >= '0' && s[0] <= '9' && k == i))
            return 0;
    }
    return 0;
}

/* Tokens of letter_level_header()'s header at t[0..n), else 0. */
static size_t letter_level_header(const logtk_slice *t, size_t n)
{
    size_t j = 0;
    if (t[0].ptr[0] == '(') { /* "(   0.000|   0.000)": times in parentheses */
        while (j < n && j < 4 && t[j].ptr[t[j].len - 1] != ')')
            j++;
        if (j == n || j == 4)
            return 0;
        for (size_t k = 0; k <= j; k++)
            for (size_t b = 0; b < t[k].len; b++)
                if (!memchr("0123456789.|()", t[k].ptr[b], 14))
                    return 0;
        j++;
    }
    if (j + 2 >= n || t[j].len != 2 || t[j].ptr[1] != ':' || !is_level_name(t[j].ptr, 1) ||
        t[j + 1].ptr[0] != '[')
        return 0;
    j++;
    /* the bracketed fields, glued or not, up to the token closing them */
    size_t k = j;
    while (k < n && k < j + 4 && t[k].ptr[t[k].len - 1] != ']')
        k++;
    if (k >= n || k == j + 4)
        return 0;
    j = k + 1;
    /* a source file and its colon ("main.c:", "sink-input.c:") */
    if (j + 1 < n && t[j].len >= 4 && t[j].ptr[t[j].len - 1] == ':') {
        const char *dot = memchr(t[j].ptr, '.', t[j].len);
        if (dot && (size_t)(t[j].ptr + t[j].len - dot) <= 5 && dot > t[j].ptr &&
            is_name_of(t[j].ptr, t[j].len - 1, "._-"))
            j++;
    }
    return j < n ? j : 0;
}

/*
 * The number of leading tokens that are the line's header rather than its
 * message, 0 when there is none.
 * A header is a run of header words - dates and times, numbers and ids
 * (tokens with a digit), month and day names (after a syslog priority
 * glued to the first, "<134>Dec"), a lone "-", bracketed spans
 * with a date in them, and at most one plain word (the host) - holding at
 * least one date or time, and ending
 *   - in a component "name:" ("Jun 14 15:16:01 combo sshd[42]:"), or
 *   - in a level word, itself followed by what loggers print after a
 *     level: bracketed spans ("[main]", "[req-1 - - -]"), a component
 *     ("name:", a dotted name, or after a thread any name before a "-") and a "-" or a
 *     lone ":" ("INFO [main] org.Foo: ...", "INFO App - ...", Spring Boot's
 *     "INFO 1234 --- [ main] com.example.App : ..." with its process id and
 *     "---"); a bracketed thread may come before a level in capitals
 *     ("12:00:00.123 [main] INFO x.Y - ...", logback's default), or
 *   - in a "-" after the date, unless a level follows it ("12:01:02 - msg"),
 *     or a name, a "-" and a level ("date - distributed.worker - INFO - msg",
 *     read on as after a level),
 *   - in a level mark after the date, '*', '#' or '.' (Redis), or
 *   - in a date or a bracketed date span followed by anything else: the
 *     last header word, or the "-" one or two words later that separates
 *     a program name from the message ("[10.30 16:49:06] chrome.exe - ..."),
 *   - or, when the line opens with its level and then its date (maybe after a
 *     bracketed thread: CUPS' "I [05/Dec/2026:04:10:00 +0000]", "INFO  [main]
 *     2026-12-05 ..."), in the date and time themselves, or in the "-" one
 *     or two words later as above ("... 04:10:00,123 Foo.java:88 - msg"):
 *     no component or host follows, the next name is the message's
 *     ("cupsdSetBusyState: ...").
 * A line that opens with a diagnostic's location and level ("src/a.c:12:5:
 * warning:", GNU's format) has them for its header, without a date.
 * A run of bracketed fields glued together ("[...][4ms][info][gc,init]", the
 * JVM's unified logging) is the whole header when it holds a date, or opens
 * the line and holds a level field; a "-" after it is the header's too.
 * A line that opens with "<*>" itself opens with its whole header, already
 * made one "<*>": a template's text, as logtk_parser_merge() feeds shards'
 * templates to a fresh parser, or a mask's replacement of it.  Its header is
 * that token alone, so the template's message is read as the line it came
 * from was (settle_template reads a template's leading "<*>" so too).
 */
static size_t header_length(const logtk_slice *t, size_t n, int dated_before);

/* A date or a time, maybe in brackets, among t[0..n) (is_date_or_time). */
static int holds_date(const logtk_slice *t, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const char *s = t[k].ptr;
        size_t len = t[k].len;
        if (len > 1 && s[0] == '[')
            s++, len--;
        if (len > 1 && s[len - 1] == ']')
            len--;
        if (is_date_or_time(s, len))
            return 1;
    }
    return 0;
}

/*
 * The header a program wrote itself after syslog's "name[pid]:", or 0.  A
 * program that prints its own date and level and is logged through syslog
 * (its standard output through the journal, mysqld_safe's "Sep 16 21:30:26
 * db mysqld: 130916 21:30:26 [Warning] Access denied ...", FreeSWITCH's
 * "freeswitch[122921]: 2016-09-25 18:57:58.150982 [WARNING] ...") or that
 * leaves the date to syslog and keeps the rest (httpd's ErrorLog to syslog,
 * "httpd[22034]: [authz_core:error] [pid 22034] [client ...] AH01630: ...")
 * writes each message after two headers, and after one when it writes its
 * own file: the inner one is the header's too.  Taken when it holds a date or
 * a time, or opens with a bracketed level; the message's own words after
 * syslog's (sshd's "error: PAM: ...", a kernel's "ACPI: ...") are neither.
 */
static size_t inner_header(const logtk_slice *t, size_t n)
{
    int dated;
    const size_t span = t[0].ptr[0] == '[' ? bracket_span(t, 0, n, &dated) : 0;
    if (span && (span_holds_level(t, 0, span) || is_level_word(t[0].ptr, t[0].len)))
        return header_length(t, n, 1);
    const size_t inner = header_length(t, n, 0);
    return inner && holds_date(t, inner) ? inner : 0;
}

size_t ltk_fuse_header_length(const logtk_slice *t, size_t n)
{
    return header_length(t, n, 0);
}

/* ltk_fuse_header_length(), the date already read before t when dated_before */
static size_t header_length(const logtk_slice *t, size_t n, int dated_before)
{
    size_t i = 0, end = 0, limit = n < 24 ? n : 24;
    int dated = dated_before, hosts = 0;
    int level_first = 0; /* the line opened with its level: the header ends with the date */
    int thread_first = 0; /* a bracketed thread came before the level (logback's pattern) */
    if (n < 2)
        return 0;
    if (ltk_is_wildcard(t[0].ptr, t[0].len))
        return 1; /* the whole header, made one "<*>" (see above) */
    const size_t rfc5424 = syslog_protocol_header(t, n);
    if (rfc5424)
        return rfc5424 < n ? rfc5424 : 0;
    /* dmesg's "[    1.234567] usb 1-1: ...": the time is the header; "ACPI:"
       after it is the message's, as it is after syslog's "kernel:" */
    size_t uptime = t[0].ptr[0] == '[' ? uptime_span(t, 0, n) : 0;
    if (uptime) {
        /* the X server's mark of where a value came from, or its level, after
           its time: "(**)" (the configuration), "(==)" (a default), "(++)"
           (the command line), "(--)" (probed), "(II)", "(WW)", "(EE)"; one
           message prints any of the first four */
        if (uptime < n && is_x_server_mark(t[uptime].ptr, t[uptime].len))
            uptime++;
        return uptime < n ? uptime : 0;
    }
    /* a level's letter and its colon, then the thread in brackets (and the
       source in brackets, or its file and a colon), maybe after the seconds
       since start and since the last line in parentheses: PulseAudio's
       "W: [pulseaudio] main.c: ..." and "(  12.071|   0.000) D:
       [pulseaudio][../src/pulsecore/sink.c:303 pa_sink_new()] ..." */
    const size_t letter = letter_level_header(t, n);
    if (letter)
        return letter;
    /* glog's and Chromium's headers: their source location is the header's
       (each message has its own, so it names no message type the words do not) */
    if (glog_header(t, n))
        return 4;
    if (t[0].ptr[0] == '[' && is_chromium_header(t[0].ptr, t[0].len))
        return 1;
    /* a diagnostic: its location and its level ("src/a.c:12:5: warning:", "x.c:3:
       fatal error:"); the message is the diagnostic's, the location its subject */
    if (t[0].len > 5 && t[0].ptr[t[0].len - 1] == ':' &&
        is_diagnostic_location(t[0].ptr, t[0].len)) {
        size_t k = 1;
        if (k + 1 < n && is_level_word(t[k].ptr, t[k].len))
            k++; /* "fatal error:" */
        if (k + 1 < n && t[k].len > 1 && t[k].ptr[t[k].len - 1] == ':' &&
            is_level_word(t[k].ptr, t[k].len - 1))
            return k + 1;
    }
    /* Ruby's Logger, "I, [2026-12-05T14:37:40.123456 #1234]  INFO -- app: msg":
       the level's letter and a comma open the line (the dated bracket and the
       level follow, read below) */
    if (t[0].len == 2 && t[0].ptr[1] == ',' && is_level_name(t[0].ptr, 1))
        end = i = 1;
    if (t[0].ptr[0] == '(' && (end = i = parenthesized_date(t, n)) != 0)
        dated = 1;
    while (i < limit) {
        const char *s = t[i].ptr;
        size_t len = t[i].len;
        int span_dated = 0;
        size_t span = 0;
        if (i == 0 && len > 2 && s[0] == '<') {
            /* syslog's priority as sent on the wire, "<134>Dec": the header's */
            const size_t pri = priority_length(s, len);
            if (pri == len) {
                end = ++i;
                continue;
            }
            s += pri;
            len -= pri;
        }
        /* seconds since the epoch with their fraction, closed by a colon,
           opening the line: hostapd's and wpa_supplicant's -t,
           "1796666628.067769: wlan0: ..." (twice in hostapd_logger's lines) */
        if (end == i && i < 2 && is_epoch_colon(s, len)) {
            dated = 1;
            end = ++i;
            continue;
        }
        /* a program's name and process id opening the line before its date,
           no colon after them: icecc's "ICECC[13606] 2026-12-07 20:55:51:
           asking for host to use" */
        if (i == 0 && n > 2 && is_bare_pid_tag(s, len) && is_date_or_time(t[1].ptr, t[1].len)) {
            end = ++i;
            continue;
        }
        /* FreeBSD's syslogd -v and -vv: the facility and level after the date,
           numbered or named ("<4.3>", "<auth.info>") */
        if (dated && end == i && s[0] == '<' && is_facility_level(s, len)) {
            end = ++i;
            continue;
        }
        /* a lone "::" or "->" right after the date ends the header: Twisted's
           and Graphite's "07/12/2026 20:24:09 :: MetricLineReceiver
           connection ...", ClamAV's "Mon Dec  7 21:17:33 2026 -> Archive
           support enabled." */
        if (dated && end == i && len == 2 &&
            ((s[0] == ':' && s[1] == ':') || (s[0] == '-' && s[1] == '>')))
            return i + 1 < n ? i + 1 : 0;
        /* a lone ':' right after the date separates it from the component:
           mpd's "Dec 07 17:47 : update: reading ..." */
        if (dated && end == i && len == 1 && s[0] == ':' && i + 2 < n &&
            is_component(t[i + 1].ptr, t[i + 1].len)) {
            end = ++i;
            continue;
        }
        /* a digit opens no level word, component or bracket: straight to the date test */
        int digit_first = s[0] >= '0' && s[0] <= '9';
        /* the line opened with its level: its header words end with its date
           and time ("I [05/Dec/2026:04:10:00 +0000] cupsdSetBusyState: ...",
           CUPS; the name after it is the message's; a "-" separator after it
           is looked for below, as for every dated header) */
        if (level_first && dated && !is_date_or_time(s, len)) {
            /* and the process id with its colon right after it: tinyproxy's
               "INFO      Dec 07 23:02:31.927 [12984]: Added address ..." */
            if (end == i && i > 0 && is_pid_colon(s, len))
                return i + 1 < n ? i + 1 : 0;
            break;
        }
        /* the level's tokens: one, or a bracket padded with blanks after the
           date ("[INFO ]", xrdp's; glued_fields() reads its field); after the
           date a word in capitals in angle brackets is a level of the
           program's own (BIRD's "<RMT>" and "<AUTH>" beside "<INFO>") */
        size_t level_tokens = !digit_first && (is_level_word(s, len) ||
                                               (dated && is_angle_capitals(s, len)));
        if (!level_tokens && !digit_first && dated && s[0] == '[') {
            int padded_level, padded_dated;
            const size_t padded = bracket_span(t, i, limit, &padded_dated);
            if (padded && !glued_fields(t, i, padded, &padded_level) && padded_level)
                level_tokens = padded;
        }
        if (level_tokens) {
            if (!dated) {
                /* a level opening the line, then its date, maybe after a
                   bracketed thread: CUPS' "I [05/Dec/2026:04:10:00 +0000]",
                   "INFO  [main] 2026-12-05 04:10:00,123 Foo.java:88 - ..."
                   (limit >= 2: token 1 is there) */
                if (i != 0)
                    return 0;
                size_t j = 1;
                int next_dated = 0;
                /* (the level padded before a lone ':', samhain's "NOTICE :
                   [2026-12-07T20:22:08+0000] msg=<...>") */
                if (t[j].len == 1 && t[j].ptr[0] == ':' && j + 1 < limit)
                    j++;
                size_t next = bracket_span(t, j, limit, &next_dated);
                if (next && !next_dated && j + next < limit) {
                    j += next; /* the thread */
                    next = bracket_span(t, j, limit, &next_dated);
                }
                /* (or a month's name opening the date: tinyproxy's "NOTICE   Dec 05
                   11:45:01.123 [1234]: ...") */
                if (!(next ? next_dated
                           : is_date_or_time(t[j].ptr, t[j].len) ||
                                 (is_calendar_any_case(t[j].ptr, t[j].len) && j + 2 < limit &&
                                  is_date_or_time(t[j + 2].ptr, t[j + 2].len))))
                    return 0;
                end = i = j;
                level_first = 1;
                continue;
            }
            i += level_tokens;
            end = i;
            /* what follows a level: spans, a component, a "-" */
            int component = 0;
            while (i < limit) {
                s = t[i].ptr;
                len = t[i].len;
                if ((span = bracket_span(t, i, limit, &span_dated)) != 0) {
                    i += span;
                    end = i;
                } else if (!component && !keys_last_number(t, i, n) &&
                           !is_past_participle_colon(s, len) &&
                           (is_component(s, len) || is_dotted_component(s, len) ||
                            logger_before_context(t, i, limit) ||
                            (thread_first && i + 1 < limit && is_dash(&t[i + 1]) &&
                             is_name_of(s, len, "._$")))) {
                    /* a logger's name: "name:", a dotted one, or after a thread
                       any name before the " - " that ends the header ("[main]
                       INFO App - msg", logback's default pattern with a class in
                       no package; "ERROR Timeout - giving up" stays a message) */
                    component = 1;
                    i++;
                    end = i;
                } else if (is_dash(&t[i]) || (!component && i + 1 < n && is_pid_tid_colon(s, len))) {
                    i++; /* (nginx's "[error] 23181#23181: msg") */
                    end = i;
                    break;
                } else if (!component && i + 1 < n && is_erlang_process(s, len)) {
                    i++; /* the process (and where it logged) after Erlang's level */
                    end = i;
                    break;
                } else if (len == 2 && s[0] == '-' && s[1] == '-' && i + 1 < limit &&
                           ((t[i + 1].len == 1 && t[i + 1].ptr[0] == ':') ||
                            is_component(t[i + 1].ptr, t[i + 1].len))) {
                    i += 2; /* Ruby's "-- progname:", "-- :" without one */
                    end = i;
                    break;
                } else if ((component || i == end) && len == 1 && s[0] == ':') {
                    /* "com.example.App : msg" (Spring Boot's logger column); a
                       level padded before its colon, rclone's "INFO  : msg" */
                    i++;
                    end = i;
                    break;
                } else if (i + 1 < limit && t[i + 1].len == 3 &&
                           memcmp(t[i + 1].ptr, "---", 3) == 0 && is_all_between(s, len, '0', '9')) {
                    i += 2; /* the process id and Spring Boot's "---" separator */
                    end = i;
                } else {
                    break;
                }
            }
            return end < n ? end : 0;
        }
        /* a process id in brackets with its colon after the header's last
           token, blanks between (fail2ban pads its logger's name: "...,048
           fail2ban.filter         [31774]: INFO ..."): syslog's
           "name[pid]:" apart, the header's */
        if (dated && end == i && i > 0 && is_pid_colon(s, len)) {
            /* and the level padded after it ("[27127]: INFO    [sshd] Found ..."):
               one message logged at two levels is one message */
            if (i + 2 < n && is_level_word(t[i + 1].ptr, t[i + 1].len))
                i++;
            return i + 1 < n ? i + 1 : 0;
        }
        /* (a word of a capital and small letters closed by its colon right
           after the date is a message's first word, not a program's name:
           Lynis' "2026-12-07 18:51:53 Binary: /usr/sbin/xrdp", "Profiles:
           ..."; after a host it is a program's, "host Xorg:"; a level so
           written stays a level) */
        /* (after the lone ':' that separates the date from it, such a word is
           the header's category: FreeRADIUS' "Mon Dec  7 20:20:08 2026 :
           Auth: (1) Login OK: ...", beside "Info:" and "Error:") */
        if (!digit_first && is_component(s, len) &&
            !(!hosts && is_sentence_word(s, len - 1) && !is_level_colon(s, len) &&
              !(i > 0 && t[i - 1].len == 1 && t[i - 1].ptr[0] == ':'))) {
            /* a program's name and the seconds since its clock started, in
               brackets, opening the line: linuxptp's "ptp4l[32489.877]: port
               1: ..." (phc2sys', ts2phc's), a time and so a header */
            if (!dated && i == 0 && i + 1 < n && is_time_tag(s, len))
                return 1;
            if (!dated)
                return 0;
            i++;
            if (keys_last_number(t, i - 1, n))
                return end;
            /* a category without a process, then its severity closed by a
               colon: BIND's "07-Dec-2026 13:04:20.701 general: info: ..." and
               its debug levels, "... general: debug 1: ..."; after
               "sshd[24200]:" an "error:" is the message's, as every ground
               truth of sshd's logs writes it */
            /* (or in capitals without its colon, after a process id too:
               fail2ban's "fail2ban.actions: NOTICE [sendmail] Ban 1.2.3.4",
               "fail2ban.actions[6605]: NOTICE ...") */
            if (i + 1 < n && t[i].len >= 4 && is_all_between(t[i].ptr, t[i].len, 'A', 'Z') &&
                is_level_word(t[i].ptr, t[i].len))
                return i + 2 < n && is_dash(&t[i + 1]) ? i + 2 : i + 1; /* ("ALERT - ...") */
            if (memchr(s, '[', len) == NULL && i + 1 < n) {
                if (is_level_colon(t[i].ptr, t[i].len))
                    return i + 1;
                if (i + 2 < n && is_level_word(t[i].ptr, t[i].len) && t[i + 1].len >= 2 &&
                    t[i + 1].ptr[t[i + 1].len - 1] == ':' &&
                    is_all_between(t[i + 1].ptr, t[i + 1].len - 1, '0', '9'))
                    return i + 2;
            }
            const int bracket = i < n && t[i].ptr[0] == '[';
            size_t tokens;
            if (bracket && (tokens = uptime_span(t, i, n)) != 0)
                i += tokens; /* "kernel: [   12.345678]" (kern.log) */
            else if (bracket && (tokens = message_id_span(t, i, n)) != 0)
                i += tokens;
            else if (i < n && !dated_before)
                i += inner_header(t + i, n - i);
            if (i < n && is_dash(&t[i]))
                i++;
            return i < n ? i : 0;
        }
        if (!digit_first && (span = bracket_span(t, i, limit, &span_dated)) != 0) {
            /* a logger that glues its fields together in brackets prints all of
               them there: the run is the whole header, with its date or its
               level ("[...][info][gc,init] Version: 17": "Version:" is no
               component) */
            int glued_level;
            if (glued_fields(t, i, span, &glued_level) &&
                (span_dated || dated || (i == 0 && glued_level))) {
                i += span;
                if (i < n && is_dash(&t[i]))
                    i++;
                return i < n ? i : 0;
            }
        }
        if (!digit_first && span && !span_dated && dated && i + span < limit &&
            ((is_level_word(t[i + span].ptr, t[i + span].len) &&
              (is_all_between(t[i + span].ptr, t[i + span].len, 'A', 'Z') ||
               t[i + span].ptr[0] == '[')) ||
             is_level_colon(t[i + span].ptr, t[i + span].len))) {
            /* the thread before the level ("12:00:00.123 [main] INFO  x.Y - ...",
               logback's and log4j 2's default pattern, which print the level in
               capitals: Slurm's "[date] [2.batch] debug levels are ..." is a
               message), or a level closed by its colon, whatever its case
               (Slurm's step, "[date] [39.batch] debug2: adding task ..."), or
               in brackets (gunicorn's "[date] [27146] [INFO] Booting worker") */
            i += span;
            end = i;
            thread_first = 1;
            continue;
        }
        if (!digit_first && span && !span_dated && i == 0 && span < limit &&
            is_date_or_time(t[span].ptr, t[span].len)) {
            /* a bracketed span opening the line right before its date: the
               process and thread Suricata prints first ("[4079 - RX#01]
               2026-12-05 11:52:56 Info: pcap: ...") */
            i += span;
            end = i;
            continue;
        }
        if (!digit_first && span && span_dated) {
            dated = 1;
            i += span;
            end = i;
            /* a bracket holding the level with the date is the whole header:
               Tornado's "[D 261207 15:28:38 web:2293] msg" (the words after
               it, "Using selector:", are no host and component) */
            if (span_holds_level(t, i - span, span)) {
                if (i < n && is_dash(&t[i]))
                    i++;
                return i < n ? i : 0;
            }
            continue;
        }
        if (is_date_or_time(s, len)) {
            dated = 1;
            end = ++i;
            /* a 12-hour clock's AM or PM: java.util.logging's "Dec 07, 2026
               12:02:00 PM App main" (a template for the morning's lines and one
               for the afternoon's otherwise) */
            if (i < limit && is_half_day(t[i].ptr, t[i].len))
                end = ++i;
            /* its time zone's abbreviation: PostgreSQL's "%m [%p] " prefix,
               "2026-12-05 14:37:40.123 UTC [1234] LOG:  ..." */
            if (i < limit && ltk_fuse_is_zone_name(t[i].ptr, t[i].len))
                end = ++i;
            continue;
        }
        if (is_dash(&t[i])) {
            end = ++i;
            /* "date - name - LEVEL - message": a logger's name between the
               separators, then its level (Python's "%(asctime)s - %(name)s -
               %(levelname)s - %(message)s") */
            if (dated && i + 2 < limit && is_dash(&t[i + 1]) &&
                is_name_chars(t[i].ptr, t[i].len) && is_level_word(t[i + 2].ptr, t[i + 2].len)) {
                i += 2;
                continue;
            }
            /* after the date a "-" separates the header from what follows,
               unless a level does, or the time (Gin's "[GIN] 2026/12/07 -
               21:01:56 | 200 | ...") */
            if (dated && !(i < limit && (is_level_word(t[i].ptr, t[i].len) ||
                                         is_date_or_time(t[i].ptr, t[i].len))))
                return end < n ? end : 0;
            continue;
        }
        /* after the date, a lone mark is a level too: Redis prints ". - * #"
           for debug, verbose, notice and warning */
        if (dated && len == 1 && (s[0] == '*' || s[0] == '#' || s[0] == '.')) {
            end = ++i;
            return end < n ? end : 0;
        }
        /* (a weekday with its comma too, as RFC 5322 dates open: exabgp's
           "Mon, 07 Dec 2026 20:19:26 5842   reactor  ...") */
        if (is_calendar_any_case(s, len) ||
            (len == 4 && s[3] == ',' && is_calendar_any_case(s, 3))) {
            end = ++i;
            continue;
        }
        /* the classes of the token's bytes, or-ed and and-ed: one lookup a byte */
        unsigned any = 0, all = VALUE_BYTE;
        for (size_t k = 0; k < len; k++) {
            any |= value_byte[(unsigned char)s[k]];
            all &= value_byte[(unsigned char)s[k]];
        }
        /* a number, an id, a node or file name with a number; not an absolute
           path, the message's: taken only when it held a digit, the header
           split one message by its file's name (xferlog's "... 12
           /home/carol/f.txt b _ o" beside "up0.txt") */
        if ((any & DIGIT_BYTE) && (all & VALUE_BYTE) && s[0] != '/' &&
            !(dated && (is_address_colon(s, len) || is_protocol_version(s, len)))) {
            end = ++i;
            /* one closed by a colon after the date closes the header: Jetty's
               time glued to its fields, "12:32:00.191:DBUG:oejd.Foo:main:"
               (the words after it, "Deployable added:", are no host and
               component) */
            if (dated && len > 1 && s[len - 1] == ':') {
                end += pid_and_level(t, end, n);
                return end < n ? end : 0;
            }
            continue;
        }
        /* the Common Log Format's fields before its date, "%h %l %u [%t]
           \"%r\"" (web servers' and proxies' access logs): the ident or a
           virtual host and the authenticated user ("127.0.0.1 - alice
           [06/Dec/2026:21:24:25 +0000] \"GET ...", "... evil.test - [...]"),
           names or "-", after the host, then the date and the quoted request */
        size_t clf = 0;
        if (!dated && end > 0)
            clf = common_log_fields(t, i, limit);
        else if (!dated && i == 0 && is_name_chars(s, len) &&
                 (clf = common_log_fields(t, 1, limit)) != 0)
            clf++; /* the host itself a name ("localhost - dave [...] \"PUT ...") */
        if (clf) {
            end = i += clf;
            continue;
        }
        /* a name and its process id so ("myprog [31774]:"), as above */
        if (dated && i + 1 < limit && is_name_chars(s, len) &&
            is_pid_colon(t[i + 1].ptr, t[i + 1].len))
            return i + 2 < n ? i + 2 : 0;
        /* a host: header only when a component or a level follows it; a
           host's module, "example.test:presence" (Prosody's), before a level.
           Not a capital and small letters only: a sentence's first word
           (PHP's error_log() lines, "[date] Order placed: user=8 ..."), but
           before a program's name and process id ("Server sshd[5174]:") */
        if (!hosts && i + 1 < limit &&
            (!is_sentence_word(s, len) || is_pid_tag(t[i + 1].ptr, t[i + 1].len)) &&
            (is_name_chars(s, len) ? is_component(t[i + 1].ptr, t[i + 1].len) ||
                                         (t[i + 1].len > 1 && is_level_word(t[i + 1].ptr, t[i + 1].len))
                                   : is_level_word(t[i + 1].ptr, t[i + 1].len) &&
                                         is_host_module(s, len))) {
            hosts = 1;
            i++;
            continue;
        }
        /* a level's capital and '>' after the date, a thread's name or a few
           before it: Tarantool's "2026-12-07 21:08:18.798 [31267]
           main/103/master.lua I> mapping ...", "... relay/127.0.0.1:58260/101/main
           I> recover from ..." (the name a fiber's, which varies) */
        if (dated && end == i) {
            const size_t angle = angle_level_at(t, i, limit);
            if (angle)
                return angle < n ? angle : 0;
        }
        /* a component and its numeric level in brackets right after the
           date: Liquidsoap's "2026/12/07 21:28:58 [pl:3] Prepared ...",
           "[decoder.mad:4]" */
        if (dated && end == i && len >= 5 && s[0] == '[' && s[len - 1] == ']' &&
            s[len - 3] == ':' && s[len - 2] >= '0' && s[len - 2] <= '9' &&
            (s[1] | 0x20) >= 'a' && (s[1] | 0x20) <= 'z' && is_name_of(s + 1, len - 4, "._-"))
            return i + 1 < n ? i + 1 : 0;
        /* a process id in brackets right after the date: Exim's "2026-12-07
           12:00:00 [10099] H=..." (its log_selector's +pid), which writes the
           same message without it otherwise */
        if (dated && end == i && len >= 3 && len <= 9 && s[0] == '[' && s[len - 1] == ']' &&
            is_all_between(s + 1, len - 2, '0', '9')) {
            end = ++i;
            continue;
        }
        /* one so named closes the header: vsftpd's "[pid 27202] [bob] OK LOGIN:"
           and "[pid 27202] CONNECT:" are messages (httpd's "[pid N]" is read
           with its level) */
        if (dated && end == i && len == 4 && memcmp(s, "[pid", 4) == 0 && i + 2 < n &&
            t[i + 1].len >= 2 && t[i + 1].ptr[t[i + 1].len - 1] == ']' &&
            is_all_between(t[i + 1].ptr, t[i + 1].len - 1, '0', '9'))
            return i + 2;
        /* after the date, a few names and bracketed fields, then a level
           closed by its colon: Pacemaker's "Dec 05 15:24:53.586 vm
           pacemaker-based     [28640] (cib_perform_op) info: ...", whose
           daemon is padded with blanks */
        /* (SSSD's undated lines too, "[sssd] [check_file] (0x0400): ...":
           its level in hex is no message's word) */
        if (dated || i == 0) {
            const size_t level = fields_before_level(t, i, limit);
            if (level && (dated || is_hex_level(t[level - 1].ptr, t[level - 1].len)))
                return level < n ? level : 0;
        }
        break;
    }
    if (!dated)
        return 0;
    /* a lone "-" one or two words on separates a program name from the
       message; not a quantity in parentheses, the message's (wget's "date
       (88.8 MB/s) - 'index.html' saved [250/250]") */
    for (size_t k = end; k < end + 3 && k + 1 < n && t[k].ptr[0] != '('; k++)
        if (is_dash(&t[k]))
            return k + 1;
    /* fields of a key and its value, up to four, then a lone '|' or '-':
       the header's (Python's logging formats, Ansible's "p=10754 u=root
       n=ansible | ok: [web1]") */
    for (size_t k = end; k < end + 5 && k + 1 < n; k++) {
        if (k > end && (is_dash(&t[k]) || (t[k].len == 1 && t[k].ptr[0] == '|')))
            return k + 1;
        if (!is_field_of_key(&t[k]))
            break;
    }
    return end < n ? end : 0;
}
