/* The runtime of crepair's meta-program (test-equivalence, f1x TOSEM'18 §3.3, §5).

   Pasted by crepair.testequiv.metaprogram.instrument() at the top of the
   meta-program, after the generated tables (__CR_NSITES, __CR_NCAND,
   __CR_OFFSET, __CR_LINKED, __cr_cand_site/group/flags, __cr_site_flags).  The protocol (environment,
   file formats) is documented in metaprogram.py and protocol.py.

   Several meta-programs may be linked into one program (one per file of a
   project): each has its own static copy of everything below and owns the
   ids __CR_OFFSET .. __CR_OFFSET + __CR_NCAND - 1 of CREPAIR_CANDIDATE and
   of the partition file; inside, a candidate is known by its id less
   __CR_OFFSET.  A copy that does not own the running candidate behaves as
   the original and, when __CR_LINKED, opens neither the partition nor the
   trace file (a copy not __CR_LINKED traces the original too).

   It declares what it needs itself and includes no header: a <signal.h>
   here would fix glibc's feature macros before the program's own
   "#define _GNU_SOURCE", and the program's macros cannot reach this text.
   The price is the Linux ABI written out below (signal numbers, flags,
   struct sigaction, stack_t, the first ints of siginfo_t).  Library
   functions are reached under asm labels, so the program's own
   declarations never conflict.  Nothing is written to stdout or stderr.
   Not thread-safe at the running candidate's site.  The pragmas silence
   what the candidates' code typically warns about (x / 0, a == a), for
   builds with -Werror; build the meta-program with -w -O0 all the same. */
#if !defined(__linux__) || defined(__mips__) || defined(__alpha__) || defined(__sparc__) || defined(__hppa__)
#error "crepair: the meta-program runtime supports Linux on x86, ARM, RISC-V and PowerPC only"
#endif
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wclobbered"
#pragma GCC diagnostic ignored "-Wdeclaration-after-statement"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wfloat-equal"
#pragma GCC diagnostic ignored "-Wbad-function-cast"
#pragma GCC diagnostic ignored "-Wint-conversion"
#pragma GCC diagnostic ignored "-Wincompatible-pointer-types"
#pragma GCC diagnostic ignored "-Wjump-misses-init"
#pragma GCC diagnostic ignored "-Wswitch-default"
#pragma GCC diagnostic ignored "-Wdiv-by-zero"
#pragma GCC diagnostic ignored "-Wtautological-compare"
#pragma GCC diagnostic ignored "-Woverflow"
#pragma GCC diagnostic ignored "-Wint-in-bool-context"
#pragma GCC diagnostic ignored "-Wbool-compare"
#pragma GCC diagnostic ignored "-Wbool-operation"
#pragma GCC diagnostic ignored "-Wparentheses"
#pragma GCC diagnostic ignored "-Wlogical-not-parentheses"
#pragma GCC diagnostic ignored "-Wlogical-op"
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wshift-count-overflow"
#pragma GCC diagnostic ignored "-Wshift-count-negative"
#pragma GCC diagnostic ignored "-Wshift-negative-value"
#pragma GCC diagnostic ignored "-Waddress"
#pragma GCC diagnostic ignored "-Wnonnull-compare"
#pragma GCC diagnostic ignored "-Wsequence-point"
#pragma GCC diagnostic ignored "-Wduplicated-cond"
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wpointer-compare"
#pragma GCC diagnostic ignored "-Wcompare-distinct-pointer-types"
#pragma GCC diagnostic ignored "-Wint-to-pointer-cast"
#pragma GCC diagnostic ignored "-Wpointer-to-int-cast"

typedef __INTPTR_TYPE__ __cr_intptr;
typedef __SIZE_TYPE__ __cr_size;
typedef __PTRDIFF_TYPE__ __cr_ssize;

extern char *__cr_getenv(const char *) __asm__("getenv");
extern int __cr_open(const char *, int, ...) __asm__("open");
extern __cr_ssize __cr_read(int, void *, __cr_size) __asm__("read");
extern __cr_ssize __cr_write(int, const void *, __cr_size) __asm__("write");
extern int __cr_close(int) __asm__("close");
extern int __cr_rename(const char *, const char *) __asm__("rename");
extern int __cr_unlink(const char *) __asm__("unlink");
extern int __cr_flock(int, int) __asm__("flock");
extern int __cr_getpid(void) __asm__("getpid");
extern int __cr_raise(int) __asm__("raise");
extern int __cr_sigaction(int, const void *, void *) __asm__("sigaction");
extern int __cr_sigaltstack(const void *, void *) __asm__("sigaltstack");
extern int __cr_setjmp(void *) __asm__("_setjmp") __attribute__((__returns_twice__, __nothrow__));
extern void __cr_longjmp(void *, int) __asm__("_longjmp") __attribute__((__noreturn__, __nothrow__));

#define __CR_O_WRONLY 01
#define __CR_O_RDWR 02
#define __CR_O_CREAT 0100
#define __CR_O_TRUNC 01000
#define __CR_O_APPEND 02000
#define __CR_O_CLOEXEC 02000000
#define __CR_LOCK_EX 2
#define __CR_SA_SIGINFO 4
#define __CR_SA_ONSTACK 0x08000000
#define __CR_SA_RESTART 0x10000000
#define __CR_SA_NODEFER 0x40000000
#define __CR_SS_DISABLE 2
#define __CR_SIGFPE 8
#define __CR_SIGSEGV 11
#define __CR_SIGBUS 7
#define __CR_SIGILL 4
#define __CR_USES_E 1 /* __cr_cand_flags: the candidate reads __cr_e */
#define __CR_OPAQUE 2 /* __cr_cand_flags: may have side effects; evaluated only when running */
#define __CR_KIND 3 /* __cr_site_flags & 3: 1 EXPR, 2 STMT, 3 DECL */
#define __CR_TRACKS 4 /* __cr_site_flags: other candidates are evaluated (value projection) */
#define __CR_TRACE_CHUNK 0xFFFFFFFEu
#define __CR_TRACE_END 0xFFFFFFFFu
#define __CR_TRACE_CUT 0xFFFFFFFDu
#define __CR_TRACE_LIMIT 1048576u

/* Value keys: values are compared as long long (pointers via intptr_t);
   a value the round trip does not give back (a float) matches nothing. */
#define __CR_KEY(v) ((long long)(__cr_intptr)(v))
#define __CR_EXACT(v) ((__typeof__(v))(__cr_intptr)(long long)(__cr_intptr)(v) == (v))
#define __CR_E(code) __cr_v = (code)
#define __CR_C(code) __cr_v = !!(code)
#define __CR_G(code) { __cr_k = !!(code); __cr_x = 1; if (__cr_c == __cr_cand) __cr_g = (int)__cr_k; }
#define __CR_O(code) { __cr_k = 0; __cr_x = 1; if (__cr_c == __cr_cand) (void)(code); }
#define __CR_S(code, out) { __cr_k = !!(code); __cr_x = 1; if (__cr_c == __cr_cand && __cr_k) (void)(out); }
#define __CR_A(lhs, code) { __typeof__(0 ? (lhs) : (lhs)) __cr_t = (code); __cr_k = __CR_KEY(__cr_t); \
    __cr_x = __CR_EXACT(__cr_t); if (__cr_c == __cr_cand) (lhs) = __cr_t; }
#define __CR_R(lhs, code) { __typeof__(0 ? (lhs) : (lhs)) __cr_t = (code); __cr_k = __CR_KEY(__cr_t); \
    __cr_x = __CR_EXACT(__cr_t); if (__cr_c == __cr_cand) { (lhs) = __cr_t; __cr_g = 0; } }

struct __cr_sigaction_t { /* glibc's struct sigaction on Linux */
    void (*handler)(int, void *, void *);
    unsigned long mask[128 / sizeof(unsigned long)];
    int flags;
    void (*restorer)(void);
};
struct __cr_stack_t { void *sp; int flags; __cr_size size; };

static int __cr_cand = -1, __cr_site = -1;     /* running candidate, its site; -1: the original */
static long __cr_steps = -1;                   /* executions of its site left before SIGKILL; -1: no limit */
static long __cr_ticks = -1;                   /* executions of STMT/DECL sites left before SIGKILL */
#define __CR_TICKS_PER_STEP 16                 /* all statements together: this many times its site's steps */
static unsigned char __cr_on[__CR_NSITES + 1]; /* per site: 1 running here, 2 traced, 4 counted */
static long __cr_jb[128] __attribute__((__aligned__(16)));
static volatile int __cr_guard, __cr_cur = -1, __cr_in_run, __cr_efault;
static int __cr_eok, __cr_pstate, __cr_n, __cr_listed, __cr_handlers, __cr_finishing;
static unsigned __cr_gen;
static int __cr_ids[__CR_NCAND + 1];
static unsigned char __cr_alive[__CR_NCAND + 1], __cr_inexact[__CR_NCAND + 1], __cr_mark[__CR_NCAND + 1];
static long long __cr_key[__CR_NCAND + 1];
static int __cr_fault[__CR_NCAND + 1];
static const char *__cr_ppath, *__cr_tpath;
static char __cr_lockpath[4200], __cr_tmppath[4200];
static struct __cr_sigaction_t __cr_old[32];
static char __cr_altstack[65536];
static unsigned __cr_tbuf[3 + 4096 + 2], __cr_tn, __cr_ttotal;
static int __cr_tfd = -1, __cr_tcut;

static const int __cr_fatal[] = {4, 5, 6, 7, 8, 11, 31}; /* ILL TRAP ABRT BUS FPE SEGV SYS */

static long __cr_atol(const char *s) {
    long v = 0;
    if (!s || !*s) return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 100000000) return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

/* dst := a b [n in decimal]; 0 if it does not fit in 4200 bytes. */
static int __cr_cat(char *dst, const char *a, const char *b, long n) {
    char digits[24];
    int k = 0, len = 0;
    while (*a && len < 4096) dst[len++] = *a++;
    while (*b && len < 4160) dst[len++] = *b++;
    if (*a || *b) return 0;
    if (n >= 0) {
        do digits[k++] = (char)('0' + n % 10); while ((n /= 10) > 0);
        while (k) dst[len++] = digits[--k];
    }
    dst[len] = 0;
    return 1;
}

/* Marks (bit 0) the listed id acc, if this copy owns it. */
static void __cr_mark_id(int ok, long long acc) {
    if (ok && acc >= __CR_OFFSET && acc - __CR_OFFSET < __CR_NCAND) __cr_mark[acc - __CR_OFFSET] |= 1;
}

/* Marks (bit 0 of __cr_mark) the ids listed in the file at fd; *gen gets
   the "gen=" of a "#" line.  A token that is not all digits is ignored. */
static void __cr_parse(int fd, unsigned *gen) {
    char buf[4096];
    __cr_ssize got, i;
    long long acc = 0;
    int digits = 0, junk = 0, comment = 0, g = 0, ingen = 0;
    *gen = 0;
    while ((got = __cr_read(fd, buf, sizeof buf)) > 0) {
        for (i = 0; i < got; i++) {
            char ch = buf[i];
            if (comment) {
                if (ch == '\n') { comment = 0; ingen = 0; continue; }
                if (ingen && ch >= '0' && ch <= '9') { *gen = *gen * 10 + (unsigned)(ch - '0'); continue; }
                ingen = 0;
                g = (ch == "gen="[g]) ? g + 1 : (ch == 'g');
                if (g == 4) { ingen = 1; *gen = 0; g = 0; }
            } else if (ch >= '0' && ch <= '9') {
                acc = acc * 10 + (ch - '0');
                digits = 1;
                if (acc > 1000000000) junk = 1;
            } else if (ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r' || ch == ',') {
                __cr_mark_id(digits && !junk, acc);
                acc = 0; digits = 0; junk = 0;
            } else if (ch == '#' && !digits && !junk) {
                comment = 1; g = 0;
            } else {
                junk = 1;
            }
        }
    }
    __cr_mark_id(digits && !junk, acc);
}

/* Writes the ids with bit 1 of __cr_mark, ascending, with "gen=gen",
   atomically (a temporary file renamed over the partition file). */
static int __cr_store(unsigned gen) {
    char buf[4096], num[24];
    int fd, i, k, n = 0, ok = 1;
    const char *head = "# crepair-partition gen=";
    if (!__cr_cat(__cr_tmppath, __cr_ppath, ".crepair-tmp.", __cr_getpid())) return 0;
    fd = __cr_open(__cr_tmppath, __CR_O_WRONLY | __CR_O_CREAT | __CR_O_TRUNC | __CR_O_CLOEXEC, 0644);
    if (fd < 0) return 0;
    while (*head) buf[n++] = *head++;
    for (i = -1; i < __CR_NCAND; i++) {
        long v = i < 0 ? (long)gen : i + (long)__CR_OFFSET;
        if (i >= 0 && !(__cr_mark[i] & 2)) continue;
        k = 0;
        do num[k++] = (char)('0' + v % 10); while ((v /= 10) > 0);
        while (k) buf[n++] = num[--k];
        buf[n++] = '\n';
        if (n > (int)sizeof buf - 32) { ok &= __cr_write(fd, buf, (__cr_size)n) == n; n = 0; }
    }
    ok &= __cr_write(fd, buf, (__cr_size)n) == n;
    ok &= __cr_close(fd) == 0;
    if (ok && __cr_rename(__cr_tmppath, __cr_ppath) == 0) return 1;
    __cr_unlink(__cr_tmppath);
    return 0;
}

static int __cr_lock(void) {
    int fd;
    if (!__cr_cat(__cr_lockpath, __cr_ppath, ".lock", -1)) return -1;
    fd = __cr_open(__cr_lockpath, __CR_O_RDWR | __CR_O_CREAT | __CR_O_CLOEXEC, 0644);
    if (fd >= 0) __cr_flock(fd, __CR_LOCK_EX);
    return fd; /* closing it unlocks */
}

static void __cr_on_signal(int sig, void *info, void *uctx);

static void __cr_install(void) {
    struct __cr_sigaction_t sa;
    struct __cr_stack_t ss, old;
    unsigned i, j;
    if (__cr_handlers) return;
    __cr_handlers = 1;
    if (__cr_sigaltstack(0, &old) == 0 && (old.flags & __CR_SS_DISABLE)) {
        ss.sp = __cr_altstack; ss.flags = 0; ss.size = sizeof __cr_altstack;
        __cr_sigaltstack(&ss, 0);
    }
    for (i = 0; i < sizeof __cr_fatal / sizeof __cr_fatal[0]; i++) {
        int sig = __cr_fatal[i];
        if (__cr_sigaction(sig, 0, &__cr_old[sig]) != 0 || (__cr_intptr)__cr_old[sig].handler == 1) continue;
        sa.handler = __cr_on_signal;
        for (j = 0; j < sizeof sa.mask / sizeof sa.mask[0]; j++) sa.mask[j] = 0;
        sa.flags = __CR_SA_SIGINFO | __CR_SA_ONSTACK | __CR_SA_NODEFER | __CR_SA_RESTART;
        sa.restorer = 0;
        __cr_sigaction(sig, &sa, 0);
    }
}

/* The first execution of the running site in this process: read the
   partition file, choose the candidates to track, write the insurance
   (the running candidate alone, what a process killed from now on leaves). */
static void __cr_first(void) {
    int fd, lock, id, i, run = __cr_cand, s = __cr_site;
    unsigned gen;
    __cr_pstate = 2;
    if (__cr_ppath) {
        lock = __cr_lock();
        fd = __cr_open(__cr_ppath, 0);
        if (fd >= 0) {
            for (i = 0; i < __CR_NCAND; i++) __cr_mark[i] = 0;
            __cr_parse(fd, &gen);
            __cr_close(fd);
            __cr_listed = __cr_mark[run] & 1;
            for (id = 0; id < __CR_NCAND; id++)
                if ((__cr_mark[id] & 1) && id != run && __cr_cand_site[id] == s && (__cr_site_flags[s] & __CR_TRACKS)
                    && __cr_cand_group[id] == __cr_cand_group[run] && !(__cr_cand_flags[id] & __CR_OPAQUE)) {
                    __cr_ids[__cr_n] = id;
                    __cr_alive[__cr_n++] = 1;
                }
            for (i = 0; i < __CR_NCAND; i++) __cr_mark[i] = (unsigned char)(i == run && __cr_listed ? 2 : 0);
            __cr_gen = gen + 1;
            if (__cr_store(__cr_gen)) __cr_pstate = 1;
        }
        if (lock >= 0) __cr_close(lock);
    }
    if (__cr_pstate == 1 || __cr_tpath) __cr_install();
}

static void __cr_trace_flush(int last) {
    unsigned n = 3 + __cr_tn;
    if (!__cr_tn && !last) return;
    if (__cr_tfd < 0) __cr_tfd = __cr_open(__cr_tpath, __CR_O_WRONLY | __CR_O_CREAT | __CR_O_APPEND | __CR_O_CLOEXEC, 0644);
    __cr_tbuf[0] = __CR_TRACE_CHUNK;
    __cr_tbuf[1] = (unsigned)__cr_getpid();
    __cr_tbuf[2] = __cr_tn;
    if (last) {
        __cr_tbuf[n++] = __cr_tcut ? __CR_TRACE_CUT : __CR_TRACE_END;
        __cr_tbuf[n++] = __cr_tbuf[1];
    }
    if (__cr_tfd >= 0) __cr_write(__cr_tfd, __cr_tbuf, n * sizeof(unsigned));
    __cr_tn = 0;
}

static void __cr_trace_add(int s) {
    if (!__cr_handlers) __cr_install();
    if (__cr_ttotal >= __CR_TRACE_LIMIT) { __cr_tcut = 1; return; }
    __cr_ttotal++;
    __cr_tbuf[3 + __cr_tn++] = (unsigned)s;
    if (__cr_tn == 4096) __cr_trace_flush(0);
}

/* The class at the end of this process (sig: the fatal signal, 0 at exit). */
static void __cr_finish(int sig) {
    int i, lock, fd, c;
    unsigned gen = 0;
    if (__cr_finishing) return;
    __cr_finishing = 1;
    if (__cr_pstate == 1) {
        lock = __cr_lock();
        for (i = 0; i < __CR_NCAND; i++) __cr_mark[i] = 0;
        fd = __cr_open(__cr_ppath, 0);
        if (fd < 0) { /* removed meanwhile: nobody reads it any more */
            if (lock >= 0) __cr_close(lock);
            if (__cr_tpath) __cr_trace_flush(1);
            return;
        }
        __cr_parse(fd, &gen);
        __cr_close(fd);
        if (__cr_listed) __cr_mark[__cr_cand] |= 2;
        for (i = 0; i < __cr_n; i++) {
            c = __cr_ids[i];
            if (!__cr_alive[i]) continue;
            if (sig && __cr_in_run == 1 && !(__cr_cand_flags[c] & __CR_USES_E)) continue;
            if (sig && __cr_in_run == 2 && __cr_fault[i] != sig) continue;
            __cr_mark[c] |= 2;
        }
        if (gen != __cr_gen) /* another process wrote since our insurance: intersect */
            for (i = 0; i < __CR_NCAND; i++) if (!(__cr_mark[i] & 1)) __cr_mark[i] &= 1;
        __cr_store(gen + 1);
        if (lock >= 0) __cr_close(lock);
    }
    if (__cr_tpath) __cr_trace_flush(1);
}

static void __cr_on_signal(int sig, void *info, void *uctx) {
    int code = ((int *)info)[2];
    int fault = sig == __CR_SIGFPE || sig == __CR_SIGSEGV || sig == __CR_SIGBUS || sig == __CR_SIGILL;
    (void)uctx;
    if (__cr_guard && fault && code > 0) {
        __cr_guard = 0;
        if (__cr_cur >= 0) __cr_fault[__cr_cur] = sig; else __cr_efault = sig;
        __cr_longjmp(__cr_jb, 1);
    }
    __cr_finish(sig);
    __cr_sigaction(sig, &__cr_old[sig], 0);
    if (!fault || code <= 0) __cr_raise(sig); /* else the faulting instruction runs again */
}

__attribute__((__constructor__(101))) static void __cr_start(void) {
    long c = __cr_atol(__cr_getenv("CREPAIR_CANDIDATE"));
    const char *p = __cr_getenv("CREPAIR_PARTITION"), *t = __cr_getenv("CREPAIR_TRACE"), *n;
    int s;
    c = c >= __CR_OFFSET ? c - (long)__CR_OFFSET : -1;
    if (c >= 0 && c < __CR_NCAND) {
        __cr_cand = (int)c;
        __cr_site = __cr_cand_site[c];
        __cr_on[__cr_site] |= 1;
        __cr_ppath = p && *p ? p : 0;
        n = __cr_getenv("CREPAIR_STEPS");
        if (n && *n) __cr_steps = __cr_atol(n);
        if (__cr_steps >= 0) { /* every statement counts: a loop the candidate's site is not in ends too */
            __cr_ticks = __CR_TICKS_PER_STEP * __cr_steps;
            for (s = 0; s < __CR_NSITES; s++) if ((__cr_site_flags[s] & __CR_KIND) >= 2) __cr_on[s] |= 4;
        }
    }
    if (t && *t && (!__CR_LINKED || __cr_cand >= 0)) {
        __cr_tpath = t;
        for (s = 0; s < __CR_NSITES; s++) if ((__cr_site_flags[s] & __CR_KIND) >= 2) __cr_on[s] |= 2;
    }
}

__attribute__((__destructor__)) static void __cr_stop(void) { __cr_finish(0); }

/* Called by a site when __cr_on[s] is set: 1 if the running candidate is here. */
static int __cr_enter(int s) {
    if (__cr_on[s] & 2) __cr_trace_add(s);
    /* out of steps: killed as at a time-out, but with the class written first: the candidates still
       alive agreed with the running one at every execution of its site so far, so each of them, run
       alone, takes the same path, executes every statement just as often and is killed at the same
       point (before the site's first execution the partition file is untouched: every listed
       candidate runs the original).  Expression sites do not count: the others' evaluation runs the
       original expression, and the sites in it, where the running candidate alone may not. */
    if ((__cr_on[s] & 4) && __cr_ticks-- == 0) { __cr_finish(0); __cr_raise(9); }
    if (s != __cr_site) return 0;
    if (!__cr_pstate) __cr_first();
    if (__cr_steps >= 0 && __cr_steps-- == 0) { __cr_finish(0); __cr_raise(9); }
    __cr_eok = 0;
    __cr_efault = 0;
    return 1;
}

/* EXPR sites: 0 original; 1 evaluate the original expression (the running
   candidate reads it); 2 skip it; 3 evaluate it guarded (others read it). */
static int __cr_mode(int s) {
    int i;
    if (!__cr_enter(s)) return 0;
    if (__cr_cand_flags[__cr_cand] & __CR_USES_E) { __cr_in_run = 1; return 1; }
    for (i = 0; i < __cr_n; i++)
        if (__cr_alive[i] && (__cr_cand_flags[__cr_ids[i]] & __CR_USES_E)) { __cr_cur = -1; __cr_guard = 1; return 3; }
    return 2;
}

static void __cr_eok_set(void) { __cr_eok = 1; __cr_guard = 0; __cr_in_run = 0; }

/* The i-th candidate to evaluate at this execution: tracked ones first
   (guarded), the running one last; -1 skip, -2 done. */
static int __cr_pick(int i) {
    int id;
    if (i < __cr_n) {
        if (!__cr_alive[i]) return -1;
        id = __cr_ids[i];
        if ((__cr_cand_flags[id] & __CR_USES_E) && !__cr_eok) {
            if (!__cr_efault) __cr_alive[i] = 0;
            __cr_fault[i] = __cr_efault;
            return -1;
        }
        __cr_fault[i] = 0;
        __cr_cur = i;
        __cr_guard = 1;
        return id;
    }
    if (i == __cr_n) { __cr_cur = i; __cr_in_run = 2; return __cr_cand; }
    return -2;
}

/* The value of the candidate just evaluated; after the running one's, the
   value projection (Algorithm 1): keep the tracked ones with its value. */
static void __cr_put(long long key, int exact) {
    int i, j, c = __cr_cur;
    __cr_guard = 0;
    if (c < __cr_n) { __cr_key[c] = key; __cr_inexact[c] = (unsigned char)!exact; return; }
    __cr_in_run = 0;
    for (i = j = 0; i < __cr_n; i++)
        if (__cr_alive[i] && !__cr_fault[i] && !__cr_inexact[i] && exact && __cr_key[i] == key) {
            __cr_ids[j] = __cr_ids[i];
            __cr_alive[j++] = 1;
        }
    __cr_n = j;
}
