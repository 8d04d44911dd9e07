// Lists every file below a directory in one call, answered as one string, and compares two trees in one call:
// for a tree of 20,000 files one py4j round trip instead of a listing per directory and a parse per entry.
// Built into the toolkit's jar by `make` (toolkit/core/storage/jvm_classes.py).
//
// list(root): "" when the root does not exist; "F" when it is a file; "L" when it is a symbolic link; else "D"
// and then, per file or link, NUL-separated: relative path, length, modification time (ms), kind ("f" a file,
// "l" a symbolic link, which is never followed). file:/// goes through java.nio (Hadoop's RawLocalFileSystem
// forks `stat` per entry without libhadoop, and follows links); every other scheme through
// FileSystem.listFiles(root, true), which HDFS answers in batches. digest(root, flag): the SHA-256 digest of a
// tree's visible files that toolkit/core/instances/fingerprints.py computes, made here in one call (the files'
// listing never crosses to Python). sizes(roots): the bytes below each of many folders. links(paths): which of some file:/// URIs
// are symbolic links (RawLocalFileSystem's statuses cannot tell). statuses(array): Hadoop's FileStatus[] (a
// listing's, a glob's) read by their getters in the JVM, per status NUL-separated: path, kind ("d" a
// directory, "f" a file, "l" a symbolic link), length (0 but for a file), modification time (ms). lookUp(fs, uri),
// exists(fs, uri) and listing(fs, uri): one path's status, existence or children in one call.

package feedtoolkit;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Paths;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.RemoteIterator;

public class TreeLister {
    private static final String SEP = "\u0000";
    private static final LinkOption[] NOFOLLOW = new LinkOption[] {LinkOption.NOFOLLOW_LINKS};
    private final Configuration conf;
    private final boolean localByNio;

    /** localByNio false: file:/// through Hadoop's RawLocalFileSystem too (the code path of other schemes). */
    public TreeLister(Configuration conf, boolean localByNio) {
        this.conf = conf;
        this.localByNio = localByNio;
    }

    public String list(String root) throws IOException {
        HashMap<String, long[]> files = new HashMap<>();
        char kind = collect(root, files, Names.NONE, true);
        if (kind != 'D') {
            return kind == '-' ? "" : String.valueOf(kind);
        }
        StringBuilder out = new StringBuilder("D");
        Iterator<Map.Entry<String, long[]>> each = files.entrySet().iterator();
        while (each.hasNext()) {
            Map.Entry<String, long[]> entry = each.next();
            long[] facts = entry.getValue();
            out.append(entry.getKey()).append(SEP).append(facts[0]).append(SEP).append(facts[1]).append(SEP)
                .append(facts[2] == 1 ? "l" : "f").append(SEP);
        }
        return out.toString();
    }

    /**
     * The fingerprint of the tree at `root` (toolkit/core/instances/fingerprints.py, which this must match): "" when
     * nothing is there, "F" a file, "L" a symbolic link, else "D", then NUL-separated: "1" when `flag` is a file
     * (or link) at the top else "0", and `visible`'s answer for the tree.
     */
    public String digest(String root, String flag) throws Exception {
        HashMap<String, long[]> files = new HashMap<>();
        char kind = collect(root, files, Names.NONE, true);
        if (kind != 'D') {
            return kind == '-' ? "" : String.valueOf(kind);
        }
        long[] flagFacts = files.get(flag);
        return "D" + (flagFacts != null ? "1" : "0") + SEP + visible(files);
    }

    /**
     * Of collected files: the hex SHA-256 of the sorted lines "relative path TAB length TAB mtime (ms) LF" of the
     * visible ones (no name on the way starting with "_" or "."), their count and their bytes, NUL-separated. "K"
     * when a visible symbolic link is among them: its time is the link's own here and what it points to in a
     * listing by levels, so the caller fingerprints such a tree that way.
     */
    private static String visible(HashMap<String, long[]> files) throws Exception {
        ArrayList<Line> lines = new ArrayList<>(files.size());
        long bytes = 0;
        Iterator<Map.Entry<String, long[]>> each = files.entrySet().iterator();
        while (each.hasNext()) {
            Map.Entry<String, long[]> entry = each.next();
            String relative = entry.getKey();
            long[] facts = entry.getValue();
            if (hiddenPath(relative)) {
                continue;
            }
            if (facts[2] == 1) {
                return "K";
            }
            lines.add(new Line(relative.getBytes(StandardCharsets.UTF_8), facts));
            bytes += facts[0];
        }
        // Python sorts the paths by code point, which is the order of their UTF-8 bytes.
        lines.sort((a, b) -> Arrays.compareUnsigned(a.path, b.path));
        // The lines go to the digest through one buffer, written byte by byte: no string per line (a rerun's
        // comparison digests every file of the instance, 20,000 of them in the replication benchmark).
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] buffer = new byte[1 << 16];
        int used = 0;
        for (int i = 0; i < lines.size(); i++) {
            Line line = lines.get(i);
            if (used + line.path.length + 48 > buffer.length) {
                sha.update(buffer, 0, used);
                used = 0;
            }
            if (line.path.length + 48 > buffer.length) {
                sha.update(line.path);
            } else {
                System.arraycopy(line.path, 0, buffer, used, line.path.length);
                used += line.path.length;
            }
            buffer[used++] = '\t';
            used = decimal(line.facts[0], buffer, used);
            buffer[used++] = '\t';
            used = decimal(line.facts[1], buffer, used);
            buffer[used++] = '\n';
        }
        sha.update(buffer, 0, used);
        StringBuilder hex = new StringBuilder(64);
        byte[] sum = sha.digest();
        for (int i = 0; i < sum.length; i++) {
            hex.append(Character.forDigit((sum[i] >> 4) & 0xf, 16)).append(Character.forDigit(sum[i] & 0xf, 16));
        }
        return hex + SEP + lines.size() + SEP + bytes;
    }

    /** A visible file's line to digest: its path's UTF-8 bytes and its facts. */
    private static final class Line {
        final byte[] path;
        final long[] facts;

        Line(byte[] path, long[] facts) {
            this.path = path;
            this.facts = facts;
        }
    }

    /** `value` in decimal ASCII (as Long.toString writes it) at `at` in `into` (20 bytes free); the next index. */
    private static int decimal(long value, byte[] into, int at) {
        if (value < 0) {
            byte[] text = Long.toString(value).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(text, 0, into, at, text.length);
            return at + text.length;
        }
        int digits = 1;
        for (long left = value / 10; left > 0; left /= 10) {
            digits++;
        }
        int end = at + digits;
        long rest = value;
        for (int i = end - 1; i >= at; i--) {
            into[i] = (byte) ('0' + rest % 10);
            rest /= 10;
        }
        return end;
    }

    private static boolean hiddenPath(String relative) {
        for (int i = 0; i < relative.length(); i++) {
            char first = relative.charAt(i);  // the first character of a name on the way
            if (first == '_' || first == '.') {
                return true;
            }
            int slash = relative.indexOf('/', i);
            if (slash < 0) {
                return false;
            }
            i = slash;
        }
        return false;
    }

    /**
     * The bytes of the files below each of `roots` (NUL-separated), NUL-separated in their order: -1 for a root
     * that is no directory. Symbolic links are not followed and count for nothing. One call for the tens of
     * thousands of instances a retention run evicts (a listing per depth took seconds).
     */
    public String sizes(String roots) throws IOException {
        StringBuilder out = new StringBuilder();
        String[] each = roots.split(SEP);
        for (int i = 0; i < each.length; i++) {
            HashMap<String, long[]> files = new HashMap<>();
            long total = -1;
            if (collect(each[i], files, Names.NONE, false) == 'D') {
                total = 0;
                Iterator<long[]> facts = files.values().iterator();
                while (facts.hasNext()) {
                    total += facts.next()[0];
                }
            }
            out.append(total).append(SEP);
        }
        return out.toString();
    }

    /** Statuses as one string (see the top of this file): one py4j call for a whole listing. */
    public String statuses(FileStatus[] statuses) {
        StringBuilder out = new StringBuilder(statuses.length * 96);
        for (int i = 0; i < statuses.length; i++) {
            append(out, statuses[i]);
        }
        return out.toString();
    }

    private static void append(StringBuilder out, FileStatus status) {
        appendAs(out, status, status.isSymlink());
    }

    /** As `append`, a symbolic link (`link`) rendered with kind "l" and length 0. */
    private static void appendAs(StringBuilder out, FileStatus status, boolean link) {
        char kind = link ? 'l' : status.isDirectory() ? 'd' : 'f';
        out.append(status.getPath().toString()).append(SEP).append(kind).append(SEP)
            .append(kind == 'f' ? status.getLen() : 0).append(SEP).append(status.getModificationTime()).append(SEP);
    }

    /** Whether a status of file:/// names a symbolic link (Hadoop's raw local statuses follow links). */
    private static boolean localLink(FileStatus status) {
        URI found = status.getPath().toUri();
        return "file".equals(found.getScheme()) && Files.isSymbolicLink(Paths.get(found.getPath()));
    }

    /**
     * The status of `uri` on `fs` as `statuses` renders each, "" when nothing is there: one py4j call where a Path,
     * an exists, a getFileStatus, its getters and a link check took five. On file:/// a symbolic link is rendered as
     * kind "l" with length 0 and the time the status read.
     */
    public String lookUp(FileSystem fs, String uri) throws IOException {
        FileStatus status;
        try {
            status = fs.getFileStatus(new Path(uri));
        } catch (FileNotFoundException gone) {
            return "";
        }
        StringBuilder out = new StringBuilder(96);
        appendAs(out, status, status.isSymlink() || localLink(status));
        return out.toString();
    }

    /**
     * The children of the folder `uri` on `fs` in one py4j call: "L" when `uri` is a symbolic link on file:///
     * (which the toolkit never follows), "F" when it is a file, else "D" and the children as `statuses` renders
     * them, links on file:/// with kind "l". Hadoop's FileNotFoundException when nothing is there.
     */
    public String listing(FileSystem fs, String uri) throws IOException {
        Path folder = new Path(uri);
        FileStatus[] children = fs.listStatus(folder);
        URI spelled = folder.toUri();
        if ("file".equals(spelled.getScheme()) && Files.isSymbolicLink(Paths.get(spelled.getPath()))) {
            return "L";
        }
        if (children.length == 1 && !children[0].isDirectory() && !inside(children[0], folder)
                && !fs.getFileStatus(folder).isDirectory()) {
            return "F";  // a file lists as itself
        }
        StringBuilder out = new StringBuilder(1 + children.length * 96).append('D');
        for (int i = 0; i < children.length; i++) {
            appendAs(out, children[i], children[i].isSymlink() || localLink(children[i]));
        }
        return out.toString();
    }

    /** Whether `child` is an entry of `folder` (then `folder` is one): no second look-up for a folder of one file. */
    private static boolean inside(FileStatus child, Path folder) {
        Path parent = child.getPath().getParent();
        return parent != null && parent.toUri().getPath().equals(folder.toUri().getPath());
    }

    /** Whether anything is at `uri` on `fs`: one py4j call where a Path and an exists took two. */
    public boolean exists(FileSystem fs, String uri) throws IOException {
        return fs.exists(new Path(uri));
    }

    /** file:///a b -> /a b (the URIs come spelled so, not %-encoded). */
    private static java.nio.file.Path localPath(String uri) {
        return Paths.get(uri.substring("file://".length()));
    }

    /** The NUL-separated file:/// URIs among `paths` (NUL-separated) that are symbolic links. */
    public String links(String paths) {
        StringBuilder out = new StringBuilder();
        String[] each = paths.split(SEP);
        for (int i = 0; i < each.length; i++) {
            if (each[i].startsWith("file:///") && Files.isSymbolicLink(localPath(each[i]))) {
                out.append(each[i]).append(SEP);
            }
        }
        return out.toString();
    }

    /**
     * How many files `source` holds when `target` holds exactly the same files (relative paths, lengths and
     * modification times), else -1. Names in `ignoredTop` (NUL-separated) at the top of either tree, and
     * every file with a name (its own or a folder's) starting with one of `ignoredPrefixes` or ending with one
     * of `ignoredSuffixes` (NUL-separated), are left out: a left-out folder is not read at all; so are symbolic
     * links. The two trees are walked at once, on two threads.
     */
    public long sameFiles(String source, String target, String ignoredTop, String ignoredPrefixes,
                          String ignoredSuffixes) throws Exception {
        HashMap<String, long[]> same = sameTree(source, target, new Names(ignoredTop, ignoredPrefixes, ignoredSuffixes),
            new Names(ignoredTop, ignoredPrefixes, ignoredSuffixes));
        return same == null ? -1 : files(same);
    }

    private static int files(HashMap<String, long[]> collected) {
        int count = 0;
        Iterator<long[]> facts = collected.values().iterator();
        while (facts.hasNext()) {
            count += facts.next()[2] == 1 ? 0 : 1;
        }
        return count;
    }

    /**
     * `sameFiles`, and when the trees are the same, the target's visible files as `digest` answers them (what a
     * rerun with nothing to copy records, without walking the target again): "" when they differ, else the count
     * and `visible`'s answer, NUL-separated; "K" for the answer when a visible name of the target was left out
     * (a flag that is no hidden name, say): the digest would miss it.
     */
    public String sameFilesDigest(String source, String target, String ignoredTop, String ignoredPrefixes,
                                  String ignoredSuffixes) throws Exception {
        Names inTarget = new Names(ignoredTop, ignoredPrefixes, ignoredSuffixes);
        HashMap<String, long[]> same = sameTree(source, target, new Names(ignoredTop, ignoredPrefixes, ignoredSuffixes),
            inTarget);
        if (same == null) {
            return "";
        }
        return files(same) + SEP + (inTarget.visibleLeftOut > 0 ? "K" : visible(same));
    }

    /**
     * The target's files and links (relative path -> {length, mtime, 1 for a link}) when the two trees hold the same
     * files, else null; each tree's walk has its own `Names` (they count what they leave out).
     */
    private HashMap<String, long[]> sameTree(final String source, String target, final Names inSource,
                                             Names inTarget) throws Exception {
        final HashMap<String, long[]> sourceFiles = new HashMap<>();
        final char[] sourceKind = new char[1];
        final Exception[] failure = new Exception[1];
        Thread walker = new Thread(new Runnable() {
            public void run() {
                try {
                    sourceKind[0] = collect(source, sourceFiles, inSource, false);
                } catch (Exception e) {
                    failure[0] = e;
                }
            }
        });
        walker.start();
        // The target's links are kept (and left out of the comparison): `visible` must see them.
        HashMap<String, long[]> targetFiles = new HashMap<>();
        char targetKind = collect(target, targetFiles, inTarget, true);
        walker.join();
        if (failure[0] != null) {
            throw failure[0];
        }
        if (sourceKind[0] != 'D' || targetKind != 'D' || sourceFiles.size() != files(targetFiles)) {
            return null;
        }
        Iterator<Map.Entry<String, long[]>> each = sourceFiles.entrySet().iterator();
        while (each.hasNext()) {
            Map.Entry<String, long[]> entry = each.next();
            long[] mine = entry.getValue();
            long[] theirs = targetFiles.get(entry.getKey());
            if (theirs == null || theirs[2] == 1 || theirs[0] != mine[0] || theirs[1] != mine[1]) {
                return null;
            }
        }
        return targetFiles;
    }

    /**
     * Names left out of a walk: some at the top only, and any starting or ending with given strings; it counts the
     * visible ones it left out (one walk's, so one instance per walk).
     */
    private static final class Names {
        static final Names NONE = new Names("", "", "");
        int visibleLeftOut;
        private final String[] top;
        private final String[] prefixes;
        private final String[] suffixes;

        Names(String top, String prefixes, String suffixes) {
            this.top = split(top);
            this.prefixes = split(prefixes);
            this.suffixes = split(suffixes);
        }

        private static String[] split(String joined) {
            return joined.isEmpty() ? new String[0] : joined.split(SEP);
        }

        boolean ignored(String name, boolean atTop) {
            boolean left = false;
            for (int i = 0; atTop && i < top.length; i++) {
                left = left || top[i].equals(name);
            }
            for (int i = 0; i < prefixes.length; i++) {
                left = left || name.startsWith(prefixes[i]);
            }
            for (int i = 0; i < suffixes.length; i++) {
                left = left || name.endsWith(suffixes[i]);
            }
            if (left && this != NONE && !name.startsWith("_") && !name.startsWith(".")) {
                visibleLeftOut++;
            }
            return left;
        }

        /** Whether a relative path is left out: its first name at the top, or any of its names anywhere. */
        boolean ignoredPath(String relative) {
            String[] names = relative.split("/");
            for (int n = 0; n < names.length; n++) {
                if (ignored(names[n], n == 0)) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * Fills `files` (relative path -> {length, mtime, 1 for a link else 0}) with the files `ignored` does not
     * leave out, and with the symbolic links when `withLinks` (never followed); answers 'D' for a directory,
     * 'F' a file, 'L' a link, '-' nothing.
     */
    private char collect(String root, HashMap<String, long[]> files, Names ignored, boolean withLinks) throws IOException {
        boolean local = root.startsWith("file:///");
        if (local && Files.isSymbolicLink(localPath(root))) {
            return 'L';
        }
        if (local && localByNio) {
            return collectLocal(localPath(root), files, ignored, withLinks);
        }
        Path path = new Path(root);
        FileSystem fs;
        if (local) {
            RawLocalFileSystem raw = new RawLocalFileSystem();  // no .crc side files hidden or added
            raw.initialize(URI.create("file:///"), conf);
            fs = raw;
        } else {
            fs = path.getFileSystem(conf);
        }
        if (!fs.exists(path)) {
            return '-';
        }
        FileStatus status = fs.getFileStatus(path);
        if (!status.isDirectory()) {
            return 'F';
        }
        String prefix = fs.makeQualified(path).toUri().getPath();
        if (!prefix.endsWith("/")) {
            prefix = prefix + "/";
        }
        if (local) {
            collectByLevel(fs, path, prefix, files, ignored, withLinks);
            return 'D';
        }
        boolean filtered = ignored != Names.NONE;
        RemoteIterator<LocatedFileStatus> each = fs.listFiles(path, true);  // one recursive listing: HDFS answers it in batches
        while (each.hasNext()) {
            LocatedFileStatus file = each.next();
            String relative = file.getPath().toUri().getPath().substring(prefix.length());
            if ((!filtered || !ignored.ignoredPath(relative)) && (withLinks || !file.isSymlink())) {
                files.put(relative, new long[] {file.isSymlink() ? 0 : file.getLen(), file.getModificationTime(),
                    file.isSymlink() ? 1 : 0});
            }
        }
        return 'D';
    }

    /** file:/// through Hadoop's RawLocalFileSystem, a folder at a time: its listFiles would follow links. */
    private static void collectByLevel(FileSystem fs, Path root, String prefix, HashMap<String, long[]> files, Names ignored,
                                       boolean withLinks) throws IOException {
        ArrayDeque<Path> folders = new ArrayDeque<>();
        folders.add(root);
        while (!folders.isEmpty()) {
            FileStatus[] children = fs.listStatus(folders.poll());
            for (int i = 0; i < children.length; i++) {
                String relative = children[i].getPath().toUri().getPath().substring(prefix.length());
                String name = children[i].getPath().getName();
                if (ignored.ignored(name, relative.indexOf('/') < 0)) {
                    continue;
                }
                if (Files.isSymbolicLink(Paths.get(children[i].getPath().toUri().getPath()))) {
                    if (withLinks) {
                        files.put(relative, new long[] {0, children[i].getModificationTime(), 1});
                    }
                } else if (children[i].isDirectory()) {
                    folders.add(children[i].getPath());
                } else {
                    files.put(relative, new long[] {children[i].getLen(), children[i].getModificationTime(), 0});
                }
            }
        }
    }

    private static char collectLocal(java.nio.file.Path root, HashMap<String, long[]> files, Names ignored, boolean withLinks)
            throws IOException {
        if (!Files.exists(root, NOFOLLOW)) {
            return '-';
        }
        if (!Files.isDirectory(root, NOFOLLOW)) {
            return 'F';
        }
        ArrayDeque<java.nio.file.Path> folders = new ArrayDeque<>();
        ArrayDeque<String> prefixes = new ArrayDeque<>();
        folders.add(root);
        prefixes.add("");
        while (!folders.isEmpty()) {
            java.nio.file.Path folder = folders.poll();
            String prefix = prefixes.poll();
            DirectoryStream<java.nio.file.Path> children = Files.newDirectoryStream(folder);
            // On Linux the stream is a SecureDirectoryStream: each entry is stat'ed relative to the open
            // folder (fstatat, as find does), not by resolving its whole path again.
            SecureDirectoryStream<java.nio.file.Path> secure = children instanceof SecureDirectoryStream
                ? (SecureDirectoryStream<java.nio.file.Path>) children : null;
            try {
                Iterator<java.nio.file.Path> each = children.iterator();
                while (each.hasNext()) {
                    java.nio.file.Path child = each.next();
                    java.nio.file.Path fileName = child.getFileName();
                    String name = fileName.toString();
                    if (ignored.ignored(name, prefix.isEmpty())) {
                        continue;
                    }
                    BasicFileAttributes attributes = secure != null
                        ? secure.getFileAttributeView(fileName, BasicFileAttributeView.class, NOFOLLOW)
                              .readAttributes()
                        : Files.readAttributes(child, BasicFileAttributes.class, NOFOLLOW);
                    String relative = prefix + name;
                    if (attributes.isSymbolicLink()) {
                        if (withLinks) {
                            files.put(relative, new long[] {0, attributes.lastModifiedTime().toMillis(), 1});
                        }
                    } else if (attributes.isDirectory()) {
                        folders.add(child);
                        prefixes.add(relative + "/");
                    } else {
                        files.put(relative, new long[] {attributes.size(), attributes.lastModifiedTime().toMillis(),
                            0});
                    }
                }
            } finally {
                children.close();
            }
        }
        return 'D';
    }
}
