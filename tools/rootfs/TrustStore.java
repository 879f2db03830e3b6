// Writes a PKCS#12 trust store holding every certificate of a PEM bundle, for
// Bazel's JVM (-Djavax.net.ssl.trustStore): Bazel's downloader trusts only the
// JDK's own cacerts, while pip, curl and go trust the machine's CA bundle.
// Run by tools/bazel with the rootfs's JDK, as a single-file program:
//   java TrustStore.java BUNDLE.pem OUT.p12 PASSWORD
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;

public class TrustStore {
  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: java TrustStore.java BUNDLE.pem OUT.p12 PASSWORD");
      System.exit(2);
    }
    char[] password = args[2].toCharArray();
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, password);
    int n = 0;
    try (FileInputStream in = new FileInputStream(args[0])) {
      for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + n++, cert);
      }
    }
    if (n == 0) {
      System.err.println("TrustStore: no certificate in " + args[0]);
      System.exit(1);
    }
    try (FileOutputStream out = new FileOutputStream(args[1])) {
      store.store(out, password);
    }
    System.out.println("TrustStore: " + n + " certificates -> " + args[1]);
  }
}
