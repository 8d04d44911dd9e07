// Reads byte ranges of landing files as lines, in Spark tasks, never a file whole: each range is cut into splits
// (a file of any size spreads over the tasks, and a task holds one buffer and one line at a time), and each line
// keeps its file and its byte offset, which a rejected record names in the dead letters. Built into the toolkit's
// jar by `make`; the executors need the jar on their class path (`--jars`, or spark.jars).
//
// Lines end with \n (a \r before it is cut off); the bytes after a range's last \n are its last line. A range
// starts where a line starts (0, or just after a \n: toolkit/actions/ingest/landing.py keeps to that) and nothing past its
// end is read, so bytes appended while a run reads are left to the next. A split that starts inside a line skips to
// the next line start; its last line may run past the split's end (never past the range's). Line numbers (from 1)
// are given where they are known without reading what comes before: in a file's first split when the range starts
// at 0; elsewhere null. A line longer than `maxLineBytes` is consumed without its text: value null.
//
// file:/// is read through java.nio with NOFOLLOW_LINKS (no .crc side files; a link swapped in since the listing
// is refused, not followed); every other scheme through Hadoop's FileSystem.
//
// Wire format: ranges NUL-separated, per range: uri, start, end. fingerprints(): per file uri and offset; answer
// per file the CRC32C (hex) of up to the 64 KiB before the offset, "" when the file is gone or shorter, "!" and
// the reason when it cannot be read.

package feedtoolkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.zip.CRC32C;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

public class LandingLines {
    private static final String SEP = "\u0000";
    private static final String LOCAL = "file:///";
    private static final int BUFFER = 1 << 16;
    static final int TAIL = 1 << 16;
    /** What opening a file costs, counted as bytes when packing splits into tasks (Spark's openCostInBytes). */
    static final long OPEN_COST = 4L * 1024 * 1024;
    public static final StructType SCHEMA = new StructType(new StructField[] {
        DataTypes.createStructField("value", DataTypes.StringType, true),
        DataTypes.createStructField("file", DataTypes.StringType, false),
        DataTypes.createStructField("offset", DataTypes.LongType, false),
        DataTypes.createStructField("line", DataTypes.LongType, true),
    });

    public LandingLines() {
    }

    /** The lines of the ranges as a DataFrame (value, file, offset, line); each range cut into even splits of at
     *  most splitBytes (and of about the total over the cores, so that one large file keeps every core busy), the
     *  splits packed into tasks as Spark's file sources pack them. */
    public Dataset<Row> read(SparkSession spark, String ranges, long splitBytes, int maxLineBytes) {
        String[] fields = ranges.isEmpty() ? new String[0] : ranges.split(SEP, -1);
        if (fields.length % 3 != 0) {
            throw new IllegalArgumentException("read takes 3 fields per range, got " + fields.length);
        }
        long total = 0;
        for (int i = 0; i < fields.length; i += 3) {
            total += Long.parseLong(fields[i + 2]) - Long.parseLong(fields[i + 1]) + OPEN_COST;
        }
        JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        int cores = Math.max(1, jsc.defaultParallelism());
        // Spark's maxSplitBytes: every core busy on one large file, never more than splitBytes a split
        long pack = Math.min(splitBytes, Math.max(OPEN_COST, (total + cores - 1) / cores));
        List<Split> splits = new ArrayList<>();
        for (int i = 0; i < fields.length; i += 3) {
            String uri = fields[i];
            long start = Long.parseLong(fields[i + 1]);
            long end = Long.parseLong(fields[i + 2]);
            long pieces = Math.max(1, (end - start + pack - 1) / pack);
            long size = (end - start + pieces - 1) / pieces;  // even pieces: no short last split
            for (long from = start; from < end; from += size) {
                splits.add(new Split(uri, start, from, Math.min(end, from + size), end));
            }
        }
        List<String> tasks = new ArrayList<>();
        StringBuilder task = new StringBuilder();
        long taskBytes = 0;
        for (Split split : splits) {
            long cost = split.stop - split.from + OPEN_COST;
            if (task.length() > 0 && taskBytes + cost > pack) {
                tasks.add(task.toString());
                task.setLength(0);
                taskBytes = 0;
            }
            if (task.length() > 0) {
                task.append(SEP);
            }
            task.append(split.wire());
            taskBytes += cost;
        }
        if (task.length() > 0) {
            tasks.add(task.toString());
        }
        Broadcast<SerializableConfiguration> conf = jsc.broadcast(
            new SerializableConfiguration(spark.sparkContext().hadoopConfiguration()));
        JavaRDD<Row> rows = jsc.parallelize(tasks, Math.max(1, tasks.size()))
            .flatMap(new TaskLines(conf, maxLineBytes));
        return spark.createDataFrame(rows, SCHEMA);
    }

    /** Per file uri and offset (NUL-separated): the CRC32C (hex) of up to TAIL bytes before the offset, "" when
     *  the file is shorter than the offset or gone, "!" and the reason when it cannot be read; NUL-separated in the
     *  same order. */
    public String fingerprints(Configuration conf, String files) throws IOException {
        String[] fields = files.isEmpty() ? new String[0] : files.split(SEP, -1);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i + 1 < fields.length; i += 2) {
            if (i > 0) {
                out.append(SEP);
            }
            out.append(fingerprint(conf, fields[i], Long.parseLong(fields[i + 1])));
        }
        return out.toString();
    }

    private static String fingerprint(Configuration conf, String uri, long offset) throws IOException {
        long from = Math.max(0, offset - TAIL);
        CRC32C crc = new CRC32C();
        byte[] buffer = new byte[(int) (offset - from)];
        try (InputStream in = open(conf, uri, from)) {
            int done = 0;
            while (done < buffer.length) {
                int read = in.read(buffer, done, buffer.length - done);
                if (read < 0) {
                    return "";
                }
                done += read;
            }
        } catch (java.nio.file.NoSuchFileException | java.io.FileNotFoundException gone) {
            return "";
        } catch (IOException unreadable) {
            String why = unreadable instanceof java.nio.file.AccessDeniedException ? "permission denied"
                : String.valueOf(unreadable.getMessage());
            return "!" + why.replace(SEP, " ");
        }
        crc.update(buffer, 0, buffer.length);
        return Long.toHexString(crc.getValue());
    }

    static InputStream open(Configuration conf, String uri, long at) throws IOException {
        if (uri.startsWith(LOCAL)) {
            OpenOption[] options = {StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS};
            FileChannel channel = FileChannel.open(Paths.get(uri.substring(LOCAL.length() - 1)), options);
            channel.position(at);
            return Channels.newInputStream(channel);
        }
        Path path = new Path(uri);
        FileSystem fs = path.getFileSystem(conf);
        FSDataInputStream in = fs.open(path, BUFFER);
        in.seek(at);
        return in;
    }

    /** One split of a range: its lines are those that start in [from, stop); none reads past `end`. */
    static final class Split {
        final String uri;
        final long rangeStart;
        final long from;
        final long stop;
        final long end;

        Split(String uri, long rangeStart, long from, long stop, long end) {
            this.uri = uri;
            this.rangeStart = rangeStart;
            this.from = from;
            this.stop = stop;
            this.end = end;
        }

        String wire() {
            return uri + SEP + rangeStart + SEP + from + SEP + stop + SEP + end;
        }
    }

    /** A task: its splits' lines, one after another, read lazily. */
    static final class TaskLines implements FlatMapFunction<String, Row>, Serializable {
        private static final long serialVersionUID = 1L;
        private final Broadcast<SerializableConfiguration> conf;
        private final int maxLineBytes;

        TaskLines(Broadcast<SerializableConfiguration> conf, int maxLineBytes) {
            this.conf = conf;
            this.maxLineBytes = maxLineBytes;
        }

        @Override
        public Iterator<Row> call(String task) {
            String[] f = task.split(SEP, -1);
            List<Split> splits = new ArrayList<>();
            for (int i = 0; i + 4 < f.length; i += 5) {
                splits.add(new Split(f[i], Long.parseLong(f[i + 1]), Long.parseLong(f[i + 2]),
                                     Long.parseLong(f[i + 3]), Long.parseLong(f[i + 4])));
            }
            Configuration hadoop = conf.value().value();
            return new Iterator<Row>() {
                private int next = 0;
                private SplitLines current = null;

                @Override
                public boolean hasNext() {
                    while (current == null || !current.hasNext()) {
                        if (current != null) {
                            current.close();
                        }
                        if (next >= splits.size()) {
                            current = null;
                            return false;
                        }
                        current = new SplitLines(hadoop, splits.get(next++), maxLineBytes);
                    }
                    return true;
                }

                @Override
                public Row next() {
                    if (!hasNext()) {
                        throw new NoSuchElementException();
                    }
                    return current.next();
                }
            };
        }
    }

    /** The lines of one split, read through one buffer; a line's bytes are kept up to maxLineBytes + 1. */
    static final class SplitLines implements Iterator<Row> {
        private final Split split;
        private final int maxLineBytes;
        private final InputStream in;
        private final byte[] buffer = new byte[BUFFER];
        private int at = 0;
        private int limit = 0;
        private long position;  // the file offset of buffer[at]
        private long lineNumber;  // the next line's number, 0 when unknown
        private byte[] line = new byte[256];

        SplitLines(Configuration conf, Split split, int maxLineBytes) {
            this.split = split;
            this.maxLineBytes = maxLineBytes;
            long seek = split.from > split.rangeStart ? split.from - 1 : split.from;
            try {
                this.in = open(conf, split.uri, seek);
            } catch (IOException err) {
                throw new IllegalStateException("cannot read the landing file " + split.uri + ": " + err, err);
            }
            this.position = seek;
            this.lineNumber = split.from == 0 ? 1 : 0;
            if (split.from > split.rangeStart) {
                skipLine();  // the line that holds byte from-1 belongs to the split before
            }
        }

        @Override
        public boolean hasNext() {
            return position < split.stop && position < split.end && fill();
        }

        @Override
        public Row next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            long offset = position;
            int kept = 0;
            long length = 0;
            boolean ended = false;
            while (!ended && fill()) {
                int from = at;
                int stop = (int) Math.min(limit, at + (split.end - position));
                int newline = from;
                while (newline < stop && buffer[newline] != '\n') {
                    newline++;
                }
                int take = newline - from;
                if (kept <= maxLineBytes) {
                    int room = Math.min(take, maxLineBytes + 1 - kept);
                    if (kept + room > line.length) {
                        byte[] grown = new byte[Math.max(kept + room, Math.min(line.length * 2, maxLineBytes + 1))];
                        System.arraycopy(line, 0, grown, 0, kept);
                        line = grown;
                    }
                    System.arraycopy(buffer, from, line, kept, room);
                    kept += room;
                }
                length += take;
                ended = newline < stop;
                int used = take + (ended ? 1 : 0);
                at += used;
                position += used;
            }
            String value = null;
            if (length <= maxLineBytes) {
                int size = kept > 0 && line[kept - 1] == '\r' ? kept - 1 : kept;
                value = new String(line, 0, size, StandardCharsets.UTF_8);
            }
            Long number = lineNumber > 0 ? Long.valueOf(lineNumber++) : null;
            return RowFactory.create(value, split.uri, offset, number);
        }

        /** Whether a byte before the range's end is in the buffer (reading more when it is used up). */
        private boolean fill() {
            if (position >= split.end) {
                return false;
            }
            if (at < limit) {
                return true;
            }
            try {
                int read = in.read(buffer, 0, buffer.length);
                if (read <= 0) {
                    return false;  // the file is shorter than it was listed: a reader sees what is there
                }
                at = 0;
                limit = read;
                return true;
            } catch (IOException err) {
                throw new IllegalStateException("cannot read the landing file " + split.uri + ": " + err, err);
            }
        }

        private void skipLine() {
            while (fill()) {
                int newline = at;
                while (newline < limit && buffer[newline] != '\n') {
                    newline++;
                }
                boolean found = newline < limit;
                int used = newline - at + (found ? 1 : 0);
                at += used;
                position += used;
                if (found) {
                    return;
                }
            }
        }

        void close() {
            try {
                in.close();
            } catch (IOException ignored) {
                // read-only: nothing is lost by a failed close
            }
        }
    }
}
