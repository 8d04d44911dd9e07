// Lists every file below a directory in one call, answered as one string, and compares two trees in one call:
// for a tree of 20,000 files one py4j round trip instead of a listing per directory and a parse per entry.
// Compiled at run time by Janino (toolkit/storage/jvm_classes.py), so it is plain Java 7 style: no lambdas,
// no diamonds, raw collections.
//
// list(root): "" when the root does not exist; "F" when it is a file; else "D" and then, per file,
// NUL-separated: relative path, length, modification time (ms). file:/// goes through java.nio (Hadoop's
// RawLocalFileSystem forks `stat` per entry without libhadoop); every other scheme through
// FileSystem.listFiles(root, true), which HDFS answers in batches.

import java.io.IOException;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Paths;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
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
    private static final LinkOption[] FOLLOW = new LinkOption[0];
    private final Configuration conf;
    private final boolean localByNio;

    /** localByNio false: file:/// through Hadoop's RawLocalFileSystem too (the code path of other schemes). */
    public TreeLister(Configuration conf, boolean localByNio) {
        this.conf = conf;
        this.localByNio = localByNio;
    }

    public String list(String root) throws IOException {
        HashMap files = new HashMap();
        char kind = collect(root, files);
        if (kind != 'D') {
            return kind == 'F' ? "F" : "";
        }
        StringBuilder out = new StringBuilder("D");
        Iterator each = files.entrySet().iterator();
        while (each.hasNext()) {
            Map.Entry entry = (Map.Entry) each.next();
            long[] facts = (long[]) entry.getValue();
            out.append((String) entry.getKey()).append(SEP).append(facts[0]).append(SEP).append(facts[1]).append(SEP);
        }
        return out.toString();
    }

    /**
     * How many files `source` holds when `target` holds exactly the same files (relative paths, lengths and
     * modification times), else -1. Names in `ignoredTop` (NUL-separated) at the top of either tree, and
     * every file with a name (its own or a folder's) starting with one of `ignoredPrefixes` or ending with one
     * of `ignoredSuffixes` (NUL-separated), are left out. The two trees are walked at once, on two threads.
     */
    public long sameFiles(final String source, String target, String ignoredTop, String ignoredPrefixes,
                          String ignoredSuffixes) throws Exception {
        final HashMap sourceFiles = new HashMap();
        final char[] sourceKind = new char[1];
        final Exception[] failure = new Exception[1];
        Thread walker = new Thread(new Runnable() {
            public void run() {
                try {
                    sourceKind[0] = collect(source, sourceFiles);
                } catch (Exception e) {
                    failure[0] = e;
                }
            }
        });
        walker.start();
        HashMap targetFiles = new HashMap();
        char targetKind = collect(target, targetFiles);
        walker.join();
        if (failure[0] != null) {
            throw failure[0];
        }
        if (sourceKind[0] != 'D' || targetKind != 'D') {
            return -1;
        }
        String[] top = ignoredTop.isEmpty() ? new String[0] : ignoredTop.split(SEP);
        String[] prefixes = ignoredPrefixes.isEmpty() ? new String[0] : ignoredPrefixes.split(SEP);
        String[] suffixes = ignoredSuffixes.isEmpty() ? new String[0] : ignoredSuffixes.split(SEP);
        drop(sourceFiles, top, prefixes, suffixes);
        drop(targetFiles, top, prefixes, suffixes);
        if (sourceFiles.size() != targetFiles.size()) {
            return -1;
        }
        Iterator each = sourceFiles.entrySet().iterator();
        while (each.hasNext()) {
            Map.Entry entry = (Map.Entry) each.next();
            long[] mine = (long[]) entry.getValue();
            long[] theirs = (long[]) targetFiles.get(entry.getKey());
            if (theirs == null || theirs[0] != mine[0] || theirs[1] != mine[1]) {
                return -1;
            }
        }
        return sourceFiles.size();
    }

    private static void drop(HashMap files, String[] top, String[] prefixes, String[] suffixes) {
        for (int i = 0; i < top.length; i++) {
            files.remove(top[i]);
        }
        if (prefixes.length == 0 && suffixes.length == 0) {
            return;
        }
        Iterator each = files.keySet().iterator();
        while (each.hasNext()) {
            String[] names = ((String) each.next()).split("/");
            boolean hit = false;
            for (int n = 0; n < names.length && !hit; n++) {
                for (int i = 0; i < prefixes.length && !hit; i++) {
                    hit = names[n].startsWith(prefixes[i]);
                }
                for (int i = 0; i < suffixes.length && !hit; i++) {
                    hit = names[n].endsWith(suffixes[i]);
                }
            }
            if (hit) {
                each.remove();
            }
        }
    }

    /** Fills `files` (relative path -> {length, mtime}); answers 'D' for a directory, 'F' a file, '-' nothing. */
    private char collect(String root, HashMap files) throws IOException {
        boolean local = root.startsWith("file:///");
        if (local && localByNio) {
            return collectLocal(Paths.get(URI.create(root)), files);
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
        RemoteIterator each = fs.listFiles(path, true);
        while (each.hasNext()) {
            LocatedFileStatus file = (LocatedFileStatus) each.next();
            String full = file.getPath().toUri().getPath();
            files.put(full.substring(prefix.length()), new long[] {file.getLen(), file.getModificationTime()});
        }
        return 'D';
    }

    private static char collectLocal(java.nio.file.Path root, HashMap files) throws IOException {
        if (!Files.exists(root, FOLLOW)) {
            return '-';
        }
        if (!Files.isDirectory(root, FOLLOW)) {
            return 'F';
        }
        ArrayDeque folders = new ArrayDeque();
        ArrayDeque prefixes = new ArrayDeque();
        folders.add(root);
        prefixes.add("");
        while (!folders.isEmpty()) {
            java.nio.file.Path folder = (java.nio.file.Path) folders.poll();
            String prefix = (String) prefixes.poll();
            DirectoryStream children = Files.newDirectoryStream(folder);
            // On Linux the stream is a SecureDirectoryStream: each entry is stat'ed relative to the open
            // folder (fstatat, as find does), not by resolving its whole path again.
            SecureDirectoryStream secure = children instanceof SecureDirectoryStream
                ? (SecureDirectoryStream) children : null;
            try {
                Iterator each = children.iterator();
                while (each.hasNext()) {
                    java.nio.file.Path child = (java.nio.file.Path) each.next();
                    BasicFileAttributes attributes = secure != null
                        ? ((BasicFileAttributeView) secure.getFileAttributeView(
                              child.getFileName(), BasicFileAttributeView.class, FOLLOW)).readAttributes()
                        : (BasicFileAttributes) Files.readAttributes(child, BasicFileAttributes.class, FOLLOW);
                    String relative = prefix + child.getFileName().toString();
                    if (attributes.isDirectory()) {
                        folders.add(child);
                        prefixes.add(relative + "/");
                    } else {
                        files.put(relative, new long[] {attributes.size(), attributes.lastModifiedTime().toMillis()});
                    }
                }
            } finally {
                children.close();
            }
        }
        return 'D';
    }
}
