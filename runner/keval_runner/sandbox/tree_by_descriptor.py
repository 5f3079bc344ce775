"""Folder trees a job's uid wrote, emptied or handed over by directory descriptors.

A guest can leave a tree no full path reaches: deeper than PATH_MAX (ENAMETOOLONG on every
path call), folders it chmod'ed to 000, names with newlines or bytes that are not UTF-8. A walk
by path strings (os.walk, shutil.rmtree on some Pythons) fails there, and a failure would stop
every later job of that uid. So each step here is relative to an open descriptor of the folder
it is in (openat, unlinkat, fchownat), never follows a link, and fixes a folder's permissions
when it cannot be opened or emptied. The walks are iterative: a deep tree needs no recursion.
"""

import os
import stat

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_SEARCHABLE = 0o700  # what a folder needs for its owner (root or not) to list and empty it


def _open_folder(name: str, parent_fd: int) -> int:
    """A descriptor of folder `name` in parent_fd, made listable first when it is not."""
    try:
        return os.open(name, _DIRECTORY, dir_fd=parent_fd)
    except PermissionError:
        # chmod follows a link, but name is no link: it was lstat'ed a folder, and no process
        # of the uid is left to swap it (the zygote's reaper ran first).
        os.chmod(name, _SEARCHABLE, dir_fd=parent_fd)
        return os.open(name, _DIRECTORY, dir_fd=parent_fd)


def _names(fd: int) -> list:
    try:
        return os.listdir(fd)
    except PermissionError:
        os.fchmod(fd, _SEARCHABLE)
        return os.listdir(fd)


def _identity(fd: int) -> tuple:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def _walk(path: str, visit, leave) -> None:
    """Depth first below the folder `path`, with one descriptor open at a time (a tree can be
    deeper than the descriptors a process may hold): down by openat, up by "..", checked
    against the folder it came from. visit(name, lstat, folder_fd) is called for each entry and
    says whether to enter it (folders only); leave(name, parent_fd) once a folder's entries are
    done."""
    fd = os.open(path, _DIRECTORY)
    try:
        frames = [(None, _identity(fd), _names(fd))]  # (name in the parent, identity, names left)
        while True:
            name_in_parent, _, names = frames[-1]
            if names:
                name = names.pop()
                try:
                    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if visit(name, st, fd) and stat.S_ISDIR(st.st_mode):
                    child = _open_folder(name, fd)
                    os.close(fd)
                    fd = child
                    frames.append((name, _identity(fd), _names(fd)))
                continue
            if len(frames) == 1:
                return
            frames.pop()
            parent = os.open("..", _DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = parent
            if _identity(fd) != frames[-1][1]:
                raise OSError(f"a folder below {path} moved while it was walked")
            leave(name_in_parent, fd)
    finally:
        os.close(fd)


def _remove_entry(name: str, parent_fd: int, remove) -> None:
    try:
        remove(name, dir_fd=parent_fd)
    except FileNotFoundError:
        pass
    except PermissionError:  # a parent without write permission (not root)
        os.fchmod(parent_fd, _SEARCHABLE)
        remove(name, dir_fd=parent_fd)


def empty_folder(path: str) -> int:
    """Removes everything below `path` (the folder itself stays); returns how many entries went.
    A link or file at `path` is removed and a folder made in its place; a missing path is made."""
    if os.path.islink(path) or (os.path.lexists(path) and not os.path.isdir(path)):
        os.unlink(path)
    os.makedirs(path, exist_ok=True)
    removed = [0]

    def visit(name, st, fd):
        if stat.S_ISDIR(st.st_mode):
            return True
        _remove_entry(name, fd, os.unlink)
        removed[0] += 1
        return False

    def leave(name, parent_fd):
        _remove_entry(name, parent_fd, os.rmdir)
        removed[0] += 1

    _walk(path, visit, leave)
    return removed[0]


def chown_tree(path: str, uid: int, gid: int) -> None:
    """chown -R by descriptors, never following links. Files with several hard links are
    skipped: a link the previous job made to a root-owned file elsewhere must not hand that file
    over."""
    if os.path.islink(path) or not os.path.isdir(path):
        return
    os.chown(path, uid, gid, follow_symlinks=False)

    def visit(name, st, fd):
        several_links = stat.S_ISREG(st.st_mode) and st.st_nlink > 1
        if not several_links and (st.st_uid != uid or st.st_gid != gid):
            os.chown(name, uid, gid, dir_fd=fd, follow_symlinks=False)
        return True

    _walk(path, visit, lambda name, parent_fd: None)
