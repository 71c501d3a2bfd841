/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scratch directories a sonde process owns while it runs (a run's stage, an
 * opened bundle, analyze's stage), and the leftovers of owners that died.
 *
 * DIR/NAME-XXXXXX comes with DIR/NAME-XXXXXX.lock beside it (never inside:
 * a stage becomes a bundle and an opened bundle is checked against its
 * manifest, member for member), on which the owner holds an flock for as long
 * as it lives. The kernel drops the lock however the owner ends (exit, signal,
 * SIGKILL, the OOM killer), so "no one holds the lock" is what "the owner is
 * dead" means, and it means the same in every PID namespace: a sonde in a
 * container sharing --out never takes a live run's stage for a dead one, as
 * kill(PID, 0) did. The lock file is made and locked before the directory,
 * so a directory without one is never a live owner's: it is left alone (a
 * sonde before this scheme made it).
 *
 * Files work the same way without a lock file: the writer of a temporary
 * (a bundle being written) holds an flock on the temporary itself.
 */
#ifndef SONDE_SCRATCH_H
#define SONDE_SCRATCH_H

#include <stddef.h>

/*
 * The directory is removed at exit and on a fatal signal (scratch__cleanup).
 * Without it, a directory the process did not remove stays (a run keeps its
 * captures when it cannot write the bundle), its lock file with it, unlocked
 * once the process is gone: the next sweep of its folder takes both.
 */
#define SCRATCH_REMOVE 1u

/*
 * Create a directory from templ (".../NAME-XXXXXX", changed in place), mode
 * 0700, and its lock file, held until the process ends or scratch__remove.
 * At most SCRATCH_MAX per process. 0 or -errno.
 */
#define SCRATCH_MAX 8
int scratch__mkdtemp(char *templ, unsigned int flags);
/* Remove a scratch directory of this process with its lock file (or any tree, file__remove_tree). */
int scratch__remove(const char *dir);
/*
 * What dead owners left in dir: every NAME.lock of this user (NAME starting
 * with prefix) that no process holds is removed with the directory NAME.
 * The number of directories removed.
 */
int scratch__sweep(const char *dir, const char *prefix);
/*
 * Temporaries of dead writers in dir: every regular file of this user whose
 * name starts with prefix and holds infix, that no process holds an flock on.
 * The number removed.
 */
int scratch__sweep_files(const char *dir, const char *prefix, const char *infix);
/*
 * Async-signal-safe: remove this process's SCRATCH_REMOVE directories, and
 * the lock files of every directory of its that is gone. For a signal handler
 * (a child that inherited the handler removes nothing of its parent's) and
 * at exit (registered by the first scratch__mkdtemp).
 */
void scratch__cleanup(void);

#endif
