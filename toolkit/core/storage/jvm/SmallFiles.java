// Reads a small file (a ledger record, a lock, a flag) in one py4j round trip instead of four (a Path, open,
// readAllBytes, close), and answers a file that is not there with null instead of a Java exception: py4j turns an
// exception into a dozen round trips of its own (its class, message and stack trace), 13 ms against 0.3 for a
// record looked for and not found, which is what a check for a kill request or a hold finds nearly every time.
// Built into the toolkit's jar by `make` (toolkit/core/storage/jvm_classes.py).

package feedtoolkit;

import java.io.FileNotFoundException;
import java.io.IOException;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

public class SmallFiles {
    public SmallFiles() {
    }

    /** The whole file at `uri` on `fs`. */
    public byte[] read(FileSystem fs, String uri) throws IOException {
        try (FSDataInputStream in = fs.open(new Path(uri))) {
            return in.readAllBytes();
        }
    }

    /** The whole file, or null when nothing is at `uri`; a file that cannot be read for another reason (a
     *  directory there, say) raises as `read` does. */
    public byte[] readIfExists(FileSystem fs, String uri) throws IOException {
        Path path = new Path(uri);
        try (FSDataInputStream in = fs.open(path)) {
            return in.readAllBytes();
        } catch (FileNotFoundException missing) {
            if (!fs.exists(path)) {
                return null;
            }
        }
        return read(fs, uri);  // created right after the first open (records appear whole, by a rename)
    }
}
