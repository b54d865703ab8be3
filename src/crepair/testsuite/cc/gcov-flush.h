/* Included (-include) into every file of a coverage build by crepair: when
   the program dies of a signal (a crash, or the SIGTERM crepair sends on a
   time-out), write the coverage counters before dying, so that failing
   tests that crash still have a spectrum.  The handler is itself counted:
   crepair reads its count to know the counters stopped mid-way (gcov then
   estimates some of them).  Declares what it needs itself:
   including <signal.h> here would fix the feature macros before the
   program's own #define _GNU_SOURCE. */
extern void __gcov_dump(void);
extern void (*signal(int, void (*)(int)))(int);
extern int raise(int);
static void __crepair_gcov_on_signal(int sig) {
    __gcov_dump();
    signal(sig, (void (*)(int))0);
    raise(sig);
}
__attribute__((constructor)) static void __crepair_gcov_install(void) {
    static const int sigs[] = {4, 6, 7, 8, 11, 15}; /* ILL ABRT BUS FPE SEGV TERM (Linux) */
    unsigned i;
    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], __crepair_gcov_on_signal);
}
