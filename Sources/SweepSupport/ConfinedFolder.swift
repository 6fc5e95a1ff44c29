import CSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A folder opened once, in which paths are then opened without ever leaving it: `..` above
/// it, absolute paths and symbolic links that resolve outside are refused by the kernel at
/// the moment of opening (openat2's RESOLVE_BENEATH), so swapping a folder on the way for a
/// link between a check and the open changes nothing.
///
/// Where the kernel lacks openat2 (Linux before 5.6, or a container's filter refuses it),
/// paths are walked one name at a time without following any symbolic link: stricter (a link
/// that stays inside is refused too), never looser.
package final class ConfinedFolder: Sendable {
    /// The folder, open as a path-only descriptor; closed with this object.
    package let descriptor: Int32
    /// The folder as given, for messages.
    package let path: String

    /// Opens the folder at `path`; nil (with `errno` set) when it cannot be opened as a folder.
    package init?(path: String) {
        let fd = Glibc.open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        descriptor = fd
        self.path = path
    }

    deinit { close(descriptor) }

    /// Opens `relative` beneath the folder with `flags` (close-on-exec is added); the
    /// descriptor, or -1 with `errno` set: EXDEV for a path that would leave the folder.
    package func open(_ relative: String, flags: Int32, mode: mode_t = 0) -> Int32 {
        let fd = sweep_open_beneath(descriptor, relative, flags | O_CLOEXEC, mode)
        if fd >= 0 || (errno != ENOSYS && errno != EPERM) { return fd }
        return walk(relative, flags: flags | O_CLOEXEC, mode: mode)
    }

    /// Opens `relative` beneath the folder as a path-only descriptor (O_PATH: no read yet, so
    /// a pipe does not block), for reopening through `/proc/self/fd/N`; -1 as ``open(_:flags:mode:)``.
    package func openPathOnly(_ relative: String) -> Int32 { open(relative, flags: O_PATH) }

    /// Creates the folder `relative` and the folders on its way beneath this one (as `mkdir -p`
    /// would), then opens it; -1 with `errno` set when a name on the way is not a folder, leaves
    /// this one, or cannot be created.
    package func makeFolders(_ relative: String) -> Int32 {
        let parts = Self.components(relative)
        for n in parts.indices {
            let parent = n == 0 ? Glibc.dup(descriptor) : open(parts[..<n].joined(separator: "/"), flags: O_PATH | O_DIRECTORY)
            guard parent >= 0 else { return -1 }
            let made = mkdirat(parent, parts[n], 0o777) == 0 || errno == EEXIST
            let saved = errno
            close(parent)
            guard made else {
                errno = saved
                return -1
            }
        }
        return open(parts.isEmpty ? "." : parts.joined(separator: "/"), flags: O_PATH | O_DIRECTORY)
    }

    /// The names of `relative`, without empty ones and `.`.
    private static func components(_ relative: String) -> [String] {
        relative.split(separator: "/").map(String.init).filter { $0 != "." }
    }

    /// `open` without openat2: each name on the way is opened without following a link (a
    /// link anywhere fails as EXDEV, since where it leads cannot be checked), and `..` may not
    /// climb above the folder.
    private func walk(_ relative: String, flags: Int32, mode: mode_t) -> Int32 {
        if relative.hasPrefix("/") {
            errno = EXDEV
            return -1
        }
        var parts = Self.components(relative)
        let last = parts.popLast() ?? "."
        var stack: [Int32] = []
        defer { stack.forEach { close($0) } }
        for part in parts {
            if part == ".." {
                guard let top = stack.popLast() else {
                    errno = EXDEV
                    return -1
                }
                close(top)
                continue
            }
            let next = openat(stack.last ?? descriptor, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { return Self.linkFailure(stack.last ?? descriptor, part) }
            stack.append(next)
        }
        if last == ".." {
            guard stack.count >= 1 else {
                errno = EXDEV
                return -1
            }
            return openat(stack.count >= 2 ? stack[stack.count - 2] : descriptor, ".", flags, mode)
        }
        let fd = openat(stack.last ?? descriptor, last, flags | O_NOFOLLOW, mode)
        guard fd >= 0 else { return Self.linkFailure(stack.last ?? descriptor, last) }
        // O_PATH with O_NOFOLLOW opens a link itself rather than failing.
        var info = stat()
        if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK {
            close(fd)
            errno = EXDEV
            return -1
        }
        return fd
    }

    /// -1, with `errno` EXDEV when `name` in `folder` is a symbolic link, and as it was otherwise.
    private static func linkFailure(_ folder: Int32, _ name: String) -> Int32 {
        let saved = errno
        var info = stat()
        errno = fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) == S_IFLNK ? EXDEV : saved
        return -1
    }
}
