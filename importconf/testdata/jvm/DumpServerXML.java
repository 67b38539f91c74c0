// DumpServerXML parses a conf/server.xml with Tomcat's own Digester rules
// (Catalina.createStartDigester, from the tomcat-catalina jar on the class
// path) and prints the thread-pool settings of every Executor and Connector
// as Tomcat holds them, without initialising anything (no port is bound).
// poolsim's importconf tests compare this with what importconf reads.
// Written for poolsim; reflection is used only for AbstractProtocol's
// protected getEndpoint().
//
// Usage: java -cp <tomcat jars>:. DumpServerXML conf/server.xml
// Output lines:
//   executor NAME core=N max=N keepAliveMs=N queue=N prefix=P
//   connector NAME pool=internal|EXECUTORNAME core=N max=N keepAliveMs=N queue=N accept=N maxConn=N
import java.io.File;
import java.lang.reflect.Method;

import org.apache.catalina.Executor;
import org.apache.catalina.Server;
import org.apache.catalina.Service;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardThreadExecutor;
import org.apache.catalina.startup.Catalina;
import org.apache.coyote.AbstractProtocol;
import org.apache.tomcat.util.digester.Digester;
import org.apache.tomcat.util.net.AbstractEndpoint;

public class DumpServerXML {

    /** Exposes the Digester Catalina builds for server.xml. */
    static final class Loader extends Catalina {
        Server parse(File f) throws Exception {
            Digester d = createStartDigester();
            d.push(this);
            d.parse(f);
            return getServer();
        }
    }

    public static void main(String[] args) throws Exception {
        Server server = new Loader().parse(new File(args[0]));
        Method getEndpoint = AbstractProtocol.class.getDeclaredMethod("getEndpoint");
        getEndpoint.setAccessible(true);
        for (Service service : server.findServices()) {
            for (Executor e : service.findExecutors()) {
                StandardThreadExecutor x = (StandardThreadExecutor) e;
                System.out.printf("executor %s core=%d max=%d keepAliveMs=%d queue=%d prefix=%s%n", x.getName(),
                        x.getMinSpareThreads(), x.getMaxThreads(), x.getMaxIdleTime(), x.getMaxQueueSize(), x.getNamePrefix());
            }
            for (Connector c : service.findConnectors()) {
                AbstractProtocol<?> p = (AbstractProtocol<?>) c.getProtocolHandler();
                AbstractEndpoint<?, ?> ep = (AbstractEndpoint<?, ?>) getEndpoint.invoke(p);
                String pool = "internal";
                if (p.getExecutor() instanceof Executor) {
                    pool = ((Executor) p.getExecutor()).getName();
                }
                System.out.printf("connector %s pool=%s core=%d max=%d keepAliveMs=%d queue=%d accept=%d maxConn=%d%n", p.getName(), pool,
                        ep.getMinSpareThreads(), ep.getMaxThreads(), ep.getThreadsMaxIdleTime(), ep.getMaxQueueSize(),
                        p.getAcceptCount(), p.getMaxConnections());
            }
        }
    }
}
