/*
 * Force-included (gcc -include) into every source of the tarball's copies of the C programs (glibc-compat.sh,
 * x86-64 only), so that they start on glibc 2.17 and newer (SLES 15 has 2.31) although this host's glibc is newer.
 * A program built against glibc 2.34 or newer asks for GLIBC_2.34 for four symbols only:
 *
 *  - dlopen, dlsym, dlerror moved from libdl into libc in 2.34 under the new version; libc.so.6 still exports them
 *    under their old one, GLIBC_2.2.5, as compat symbols. The .symver directives below make every reference ask
 *    for that one: glibc 2.34 and newer find it in libc.so.6, older glibc in libdl.so.2 (the dynamic linker looks
 *    a versioned symbol up in every loaded library), which the build links in for this (-l:libdl.so.2).
 *
 *  - __libc_start_main is called by Scrt1.o, which is not compiled from these sources, so the build renames that
 *    call (-Wl,--wrap=__libc_start_main) to the wrapper below, which calls the GLIBC_2.2.5 version.
 *
 * The wrapper is defined weak, once per translation unit, so that this header is all the build adds; the linker
 * keeps one. Nothing here changes what the programs do: the calls reach the same glibc functions.
 */
#ifndef ALPSBRIDGE_GLIBC_COMPAT_H
#define ALPSBRIDGE_GLIBC_COMPAT_H

#if !defined(__x86_64__) || !defined(__linux__)
#error "glibc-compat.h names x86-64's oldest glibc symbol versions (GLIBC_2.2.5): build without it elsewhere"
#endif

__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver dlerror,dlerror@GLIBC_2.2.5");

typedef int (*glibc_compat_main_fn)(int, char **, char **);
typedef void (*glibc_compat_init_fn)(int, char **, char **);
typedef void (*glibc_compat_void_fn)(void);

/* The old __libc_start_main, which every glibc since 2.2.5 exports (2.34 and newer as a compat symbol). */
int glibc_compat_old_start_main(glibc_compat_main_fn main_fn, int argc, char **argv, glibc_compat_init_fn init,
                                glibc_compat_void_fn fini, glibc_compat_void_fn rtld_fini, void *stack_end);
__asm__(".symver glibc_compat_old_start_main,__libc_start_main@GLIBC_2.2.5");

int __wrap___libc_start_main(glibc_compat_main_fn main_fn, int argc, char **argv, glibc_compat_init_fn init,
                             glibc_compat_void_fn fini, glibc_compat_void_fn rtld_fini, void *stack_end);

/* What the linker provides (crti.o's _init, the default linker script's array bounds), hidden in the executable. */
extern void _init(void) __attribute__((visibility("hidden")));
extern glibc_compat_init_fn __init_array_start[] __attribute__((visibility("hidden")));
extern glibc_compat_init_fn __init_array_end[] __attribute__((visibility("hidden")));

/*
 * The executable's constructors, as old glibc's __libc_csu_init ran them for a dynamically linked program: _init
 * (the .init section), then every .init_array entry, with argc, argv and envp. Why the wrapper passes this:
 * glibc 2.34's Scrt1.o passes init == NULL, because the new __libc_start_main runs the executable's constructors
 * itself when init is NULL; the old one (glibc < 2.34) runs only a non-NULL init, and with NULL would run none of
 * them. Every glibc calls a non-NULL init (2.34 and newer treat it as a legacy program's and call it instead of
 * running the constructors itself), so with this one they run exactly once on old and new glibc alike. The
 * .preinit_array is not run here: for a dynamically linked program the dynamic linker runs it, on every glibc
 * (elf/dl-init.c), which is why old glibc's __libc_csu_init also left it out of a dynamic program's init.
 */
static void glibc_compat_run_constructors(int argc, char **argv, char **envp)
{
    _init();
    for (glibc_compat_init_fn *f = __init_array_start; f < __init_array_end; f++) {
        (*f)(argc, argv, envp);
    }
}

/* Called by Scrt1.o's renamed call, which no source names: */
/* cppcheck-suppress unusedFunction */
__attribute__((weak)) int __wrap___libc_start_main(glibc_compat_main_fn main_fn, int argc, char **argv,
                                                   glibc_compat_init_fn init, glibc_compat_void_fn fini,
                                                   glibc_compat_void_fn rtld_fini, void *stack_end)
{
    /* A crt1 older than 2.34 passes its own init (__libc_csu_init), which already runs the constructors. */
    return glibc_compat_old_start_main(main_fn, argc, argv, init ? init : glibc_compat_run_constructors, fini,
                                       rtld_fini, stack_end);
}

#endif
