// Lists every file below a directory in one call, answered as one string: for a tree of 20,000 files one py4j
// round trip instead of a listing per directory and a parse per entry. Compiled at run time by Janino
// (toolkit/storage/jvm_classes.py), so it is plain Java 7 style: no lambdas, no diamonds, raw collections.
//
// Answer: "" when the root does not exist; "F" when it is a file; else "D" and then, per file, NUL-separated:
// relative path, length, modification time (ms). file:/// goes through java.nio (Hadoop's RawLocalFileSystem
// forks `stat` per entry without libhadoop); every other scheme through FileSystem.listFiles(root, true),
// which HDFS answers in batches.

import java.io.IOException;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Paths;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.Iterator;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.RemoteIterator;

public class TreeLister {
    private static final String SEP = "\u0000";
    private final Configuration conf;
    private final boolean localByNio;

    /** localByNio false: file:/// through Hadoop's RawLocalFileSystem too (the code path of other schemes). */
    public TreeLister(Configuration conf, boolean localByNio) {
        this.conf = conf;
        this.localByNio = localByNio;
    }

    public String list(String root) throws IOException {
        boolean local = root.startsWith("file:///");
        if (local && localByNio) {
            return listLocal(Paths.get(URI.create(root)));
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
            return "";
        }
        FileStatus status = fs.getFileStatus(path);
        if (!status.isDirectory()) {
            return "F";
        }
        String prefix = fs.makeQualified(path).toUri().getPath();
        if (!prefix.endsWith("/")) {
            prefix = prefix + "/";
        }
        StringBuilder out = new StringBuilder("D");
        RemoteIterator files = fs.listFiles(path, true);
        while (files.hasNext()) {
            LocatedFileStatus file = (LocatedFileStatus) files.next();
            String full = file.getPath().toUri().getPath();
            out.append(full.substring(prefix.length())).append(SEP).append(file.getLen()).append(SEP)
               .append(file.getModificationTime()).append(SEP);
        }
        return out.toString();
    }

    private String listLocal(java.nio.file.Path root) throws IOException {
        if (!Files.exists(root, new LinkOption[0])) {
            return "";
        }
        if (!Files.isDirectory(root, new LinkOption[0])) {
            return "F";
        }
        StringBuilder out = new StringBuilder("D");
        ArrayDeque folders = new ArrayDeque();
        folders.add(root);
        while (!folders.isEmpty()) {
            java.nio.file.Path folder = (java.nio.file.Path) folders.poll();
            DirectoryStream children = Files.newDirectoryStream(folder);
            try {
                Iterator each = children.iterator();
                while (each.hasNext()) {
                    java.nio.file.Path child = (java.nio.file.Path) each.next();
                    BasicFileAttributes attributes = Files.readAttributes(child, BasicFileAttributes.class,
                                                                          new LinkOption[0]);
                    if (attributes.isDirectory()) {
                        folders.add(child);
                    } else {
                        out.append(root.relativize(child).toString()).append(SEP).append(attributes.size())
                           .append(SEP).append(attributes.lastModifiedTime().toMillis()).append(SEP);
                    }
                }
            } finally {
                children.close();
            }
        }
        return out.toString();
    }
}
