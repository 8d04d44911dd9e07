// Copies a list of files as one Spark job: the list split into tasks balanced by bytes, each task copying its files
// on its executor with BulkCopy (the same checks: listed length and mtime, CRC32C on the way, the target's length,
// HDFS checksums, the mtime set last), the per-file answers collected back to the driver in the list's order.
// Built into the toolkit's jar by `make`; the executors need the jar on their class path (`--jars`, or spark.jars).
//
// Wire format (NUL-separated, as BulkCopy's):
//   in:  source, target, listed length, listed mtime (ms)  per file
//   out: the slice count k; per slice: executor id, host, files, bytes, milliseconds, attempt; then BulkCopy's
//        answer per file (bytes, crc32c hex, error), in the input's order.

package feedtoolkit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.util.SerializableConfiguration;

public class DistributedCopy {
    private static final String SEP = "\u0000";
    /** What opening, checking and closing one file costs, counted as bytes when balancing: many small files
     *  spread over the tasks too (DistCp's uniformsize counts bytes only). */
    static final long FILE_COST = 256 * 1024;
    private static final int FACTS = 6;  // per slice: executor id, host, files, bytes, milliseconds, attempt

    private final SparkContext sc;
    private final Configuration conf;
    private final int threads;
    private final int bufferSize;
    private final boolean localByNio;

    /** threads, bufferSize, localByNio: BulkCopy's, for the copier each task runs. */
    public DistributedCopy(SparkContext sc, Configuration conf, int threads, int bufferSize, boolean localByNio) {
        this.sc = sc;
        this.conf = conf;
        this.threads = threads;
        this.bufferSize = bufferSize;
        this.localByNio = localByNio;
    }

    /** Copies every file as one job of at most `slices` tasks; see the wire format above. */
    public String copy(String tasks, final boolean preservePermission, int slices) throws Exception {
        if (sc.conf().getBoolean("spark.speculation", false)) {
            // Two attempts of one task would write the same staging file at once, and the loser's cleanup would
            // delete the winner's verified copy.
            throw new IllegalStateException("spark.speculation is on: a distributed copy needs it off (two attempts "
                + "of one task would write the same files)");
        }
        final String[] fields = tasks.isEmpty() ? new String[0] : tasks.split(SEP, -1);
        if (fields.length % 4 != 0) {
            throw new IllegalArgumentException("copy takes 4 fields per task, got " + fields.length);
        }
        long[] lengths = new long[fields.length / 4];
        for (int i = 0; i < lengths.length; i++) {
            lengths[i] = Long.parseLong(fields[4 * i + 2]);
        }
        int[][] plan = balance(lengths, slices);
        List<String> chunks = new ArrayList<>(plan.length);
        for (int[] slice : plan) {
            StringBuilder chunk = new StringBuilder();
            for (int index : slice) {
                for (int f = 0; f < 4; f++) {
                    if (chunk.length() > 0) {
                        chunk.append(SEP);
                    }
                    chunk.append(fields[4 * index + f]);
                }
            }
            chunks.add(chunk.toString());
        }
        JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sc);
        final Broadcast<SerializableConfiguration> shared = jsc.broadcast(new SerializableConfiguration(conf));
        final int taskThreads = threads;
        final int taskBuffer = bufferSize;
        final boolean taskNio = localByNio;
        final String base = BulkCopy.commonFolder(tasks);  // the whole job's: a slice's own would be deeper
        List<String> answers;
        sc.setJobDescription("feed-toolkit distributed copy: " + lengths.length + " files in " + plan.length
            + " tasks");
        try {
            answers = jsc.parallelize(chunks, Math.max(1, chunks.size()))
                .map(chunk -> copySlice(shared.value().value(), chunk, preservePermission, taskThreads, taskBuffer,
                                        taskNio, base))
                .collect();
        } finally {
            sc.setJobDescription(null);
            shared.destroy();
        }
        String[] perFile = new String[lengths.length];
        StringBuilder out = new StringBuilder();
        out.append(plan.length);
        for (int s = 0; s < plan.length; s++) {
            String[] answer = answers.get(s).split(SEP, -1);  // FACTS facts, then 3 fields per file
            for (int f = 0; f < FACTS; f++) {
                out.append(SEP).append(answer[f]);
            }
            for (int k = 0; k < plan[s].length; k++) {
                int at = FACTS + 3 * k;
                perFile[plan[s][k]] = answer[at] + SEP + answer[at + 1] + SEP + answer[at + 2];
            }
        }
        for (String file : perFile) {
            out.append(SEP).append(file);
        }
        return out.toString();
    }

    /** On an executor: one slice copied by a BulkCopy; its facts (executor, host, files, bytes, ms, attempt)
     *  before BulkCopy's answer. */
    static String copySlice(Configuration conf, String chunk, boolean preservePermission, int threads,
                            int bufferSize, boolean localByNio, String base) throws Exception {
        long began = System.nanoTime();
        String answer = new BulkCopy(conf, threads, bufferSize, localByNio).copy(chunk, preservePermission, base);
        long millis = (System.nanoTime() - began) / 1_000_000;
        String[] fields = answer.isEmpty() ? new String[0] : answer.split(SEP, -1);
        long bytes = 0;
        for (int i = 0; i < fields.length; i += 3) {
            bytes += Long.parseLong(fields[i]);
        }
        SparkEnv env = SparkEnv.get();
        TaskContext task = TaskContext.get();
        String facts = String.join(SEP, env.executorId(), env.blockManager().blockManagerId().host(),
            Integer.toString(fields.length / 3), Long.toString(bytes), Long.toString(millis),
            Integer.toString(task == null ? 0 : task.attemptNumber()));
        return facts + (fields.length == 0 ? "" : SEP + answer);
    }

    /** The files' indices in at most `slices` groups of about equal cost (bytes plus FILE_COST per file): the
     *  largest first, each to the group with the least so far (the longest-processing-time rule, within 4/3 of
     *  the best split). Groups keep their files in the input's order; no group is empty. */
    public static int[][] balance(long[] lengths, int slices) {
        int groups = Math.max(1, Math.min(slices, lengths.length));
        if (lengths.length == 0) {
            return new int[0][];
        }
        Integer[] order = new Integer[lengths.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingLong((Integer i) -> lengths[i]).reversed().thenComparing(i -> i));
        long[] load = new long[groups];
        PriorityQueue<Integer> least = new PriorityQueue<>(
            Comparator.comparingLong((Integer g) -> load[g]).thenComparing(g -> g));
        List<List<Integer>> members = new ArrayList<>(groups);
        for (int g = 0; g < groups; g++) {
            least.add(g);
            members.add(new ArrayList<>());
        }
        for (int index : order) {
            int group = least.poll();
            members.get(group).add(index);
            load[group] += lengths[index] + FILE_COST;
            least.add(group);
        }
        int[][] plan = new int[groups][];
        for (int g = 0; g < groups; g++) {
            plan[g] = members.get(g).stream().mapToInt(Integer::intValue).sorted().toArray();
        }
        return plan;
    }
}
