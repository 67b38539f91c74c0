// GenAccessLog writes access-log lines with Tomcat's own AccessLogValve code
// (AbstractAccessLogValve from the tomcat-catalina jar on the class path),
// for requests whose start instant and elapsed time are known. poolsim's
// accesslog tests run it to check that the Go parser reads back exactly
// what Tomcat wrote. Written for poolsim; it only calls Tomcat's public API
// plus reflection on two private fields that have no setter.
//
// Usage: java -cp <tomcat jars>:. GenAccessLog 'PATTERN' < requests > log
// Each input line: startEpochNanos elapsedNanos commitNanos status bytes
// method uri remoteAddr [user agent, the rest of the line] (commitNanos < 0:
// never committed). Output: one log line per request, in input order.
import java.io.BufferedReader;
import java.io.CharArrayWriter;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.AbstractAccessLogValve;

public class GenAccessLog {

    /** A valve that hands each formatted line to stdout instead of a file. */
    static final class StdoutValve extends AbstractAccessLogValve {
        final PrintStream out;
        StdoutValve(PrintStream out) { this.out = out; }
        @Override protected void log(CharArrayWriter message) { out.println(message.toString()); }
        // No container: skip JMX registration and container logging.
        @Override protected void initInternal() {}
        @Override protected void destroyInternal() {}
        @Override protected void startInternal() throws LifecycleException { setState(LifecycleState.STARTING); }
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        StdoutValve valve = new StdoutValve(out);
        valve.setPattern(args[0]);
        valve.start();
        Connector connector = new Connector("HTTP/1.1");
        Field startInstant = org.apache.coyote.Request.class.getDeclaredField("startInstant");
        startInstant.setAccessible(true);
        Field commitNanos = org.apache.coyote.Response.class.getDeclaredField("commitTimeNanos");
        commitNanos.setAccessible(true);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null;) {
            String[] f = line.trim().split(" ", 9);
            if (f.length < 8) {
                continue;
            }
            long start = Long.parseLong(f[0]);
            long elapsed = Long.parseLong(f[1]);
            long commit = Long.parseLong(f[2]);
            org.apache.coyote.Request cr = new org.apache.coyote.Request();
            cr.setStartTimeNanos(0);
            startInstant.set(cr, Instant.ofEpochSecond(Math.floorDiv(start, 1_000_000_000L), Math.floorMod(start, 1_000_000_000L)));
            cr.method().setString(f[5]);
            cr.requestURI().setString(f[6]);
            cr.protocol().setString("HTTP/1.1");
            cr.remoteAddr().setString(f[7]);
            cr.remoteHost().setString(f[7]);
            if (f.length > 8) {
                cr.getMimeHeaders().addValue("User-Agent").setString(f[8]);
            }
            Request req = new Request(connector);
            req.setCoyoteRequest(cr);
            org.apache.coyote.Response crs = new org.apache.coyote.Response();
            crs.setStatus(Integer.parseInt(f[3]));
            final long bytes = Long.parseLong(f[4]);
            crs.setOutputBuffer(new org.apache.coyote.OutputBuffer() {
                @Override public int doWrite(ByteBuffer chunk) { return 0; }
                @Override public long getBytesWritten() { return bytes; }
            });
            commitNanos.setLong(crs, commit);
            Response resp = new Response();
            resp.setCoyoteResponse(crs);
            resp.setRequest(req);
            valve.log(req, resp, elapsed);
        }
        out.flush();
    }
}
