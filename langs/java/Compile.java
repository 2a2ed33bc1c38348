// Compile.java - the java compile step of /v1/execute and the sessions API
// (the manifest's execute.compile), run by the JDK's source launcher:
//
//   java Compile.java -d CLASSES -main-class FILE MAIN
//
// Compiles MAIN and the other *.java files of the working directory to
// class files in CLASSES, as `javac -d CLASSES -cp . *.java` would, and
// writes the name of the class to run into FILE, for the run step's
// `java -cp CLASSES @FILE`.  Two things javac alone cannot do:
//
// - Any file name: javac refuses a public class HelloWorld in Main.java
//   (or in test.java, or in a file without .java); the source launcher
//   accepts it, and so does this (the compiler is told every name fits).
// - The class to run: the first top-level type of MAIN that declares or
//   inherits `public static void main(String[])` (the source launcher runs
//   the first top-level type), else MAIN's first top-level type, so the
//   JVM says what is missing, else "Main".  It is read from the compiler's
//   own model of the code: comments, strings, packages and nested classes
//   need no guessing.
//
// Diagnostics are javac's, printed by javac; exit 0 when the code compiled,
// 1 when it did not, 2 on a usage error.
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TaskEvent;
import com.sun.source.util.TaskListener;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.tools.ForwardingJavaFileObject;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public class Compile {
    /** A source file whatever its name: javac's "should be declared in a file named" check passes. */
    static final class AnyName extends ForwardingJavaFileObject<JavaFileObject> {
        AnyName(JavaFileObject file) {
            super(file);
        }

        @Override
        public Kind getKind() {
            return Kind.SOURCE;
        }

        @Override
        public boolean isNameCompatible(String simpleName, Kind kind) {
            if (simpleName.equals("package-info") || simpleName.equals("module-info"))
                return super.isNameCompatible(simpleName, kind);
            return kind == Kind.SOURCE;
        }
    }

    /** Watches the compiler: MAIN's top-level types in order, and which of them can be launched. */
    static final class MainFinder implements TaskListener {
        final JavaFileObject main;
        final JavacTask task;
        final List<String> types = new ArrayList<>();
        final Set<String> launchable = new HashSet<>();

        MainFinder(JavaFileObject main, JavacTask task) {
            this.main = main;
            this.task = task;
        }

        @Override
        public void finished(TaskEvent e) {
            if (e.getSourceFile() == null || !e.getSourceFile().toUri().equals(main.toUri()))
                return;
            if (e.getKind() == TaskEvent.Kind.PARSE) {
                CompilationUnitTree unit = e.getCompilationUnit();
                String pkg = unit.getPackageName() == null ? "" : unit.getPackageName() + ".";
                for (Tree t : unit.getTypeDecls())
                    if (t instanceof ClassTree)
                        types.add(pkg + ((ClassTree) t).getSimpleName());
            } else if (e.getKind() == TaskEvent.Kind.ANALYZE && e.getTypeElement() != null) {
                TypeElement type = e.getTypeElement();
                if (hasMain(type))
                    launchable.add(type.getQualifiedName().toString());
            }
        }

        boolean hasMain(TypeElement type) {
            for (ExecutableElement m : ElementFilter.methodsIn(task.getElements().getAllMembers(type))) {
                if (!m.getSimpleName().contentEquals("main")
                        || !m.getModifiers().contains(Modifier.STATIC)
                        || !m.getModifiers().contains(Modifier.PUBLIC)
                        || m.getReturnType().getKind() != TypeKind.VOID
                        || m.getParameters().size() != 1)
                    continue;
                TypeMirror p = m.getParameters().get(0).asType();
                if (p.getKind() == TypeKind.ARRAY
                        && ((ArrayType) p).getComponentType().toString().equals("java.lang.String"))
                    return true;
            }
            return false;
        }

        String mainClass() {
            for (String t : types)
                if (launchable.contains(t))
                    return t;
            return types.isEmpty() ? "Main" : types.get(0);
        }
    }

    static int usage() {
        System.err.println("usage: java Compile.java -d CLASSES -main-class FILE MAIN");
        return 2;
    }

    static int run(String[] args) throws IOException {
        String out = null, mainClassFile = null, mainPath = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("-d") && i + 1 < args.length)
                out = args[++i];
            else if (args[i].equals("-main-class") && i + 1 < args.length)
                mainClassFile = args[++i];
            else if (mainPath == null)
                mainPath = args[i];
            else
                return usage();
        }
        if (out == null || mainClassFile == null || mainPath == null)
            return usage();

        // The files, named as javac's command line would name them (its
        // diagnostics say "Main.java:3: error"): the shell's *.java of the
        // working directory (no hidden file), in order, MAIN among them or
        // first.
        Path mainReal;
        try {
            mainReal = Paths.get(mainPath).toRealPath();
        } catch (IOException e) {
            System.err.println("error: file not found: " + mainPath);
            return 2;
        }
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(Paths.get(""), "*.java")) {
            for (Path p : dir)
                if (!p.getFileName().toString().startsWith(".") && Files.isRegularFile(p))
                    files.add(p);
        }
        files.sort(null);
        Path main = null;
        for (Path p : files)
            if (p.toRealPath().equals(mainReal))
                main = p;
        if (main == null) {
            main = Paths.get(mainPath);
            files.add(0, main);
        }

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager fm = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8);
        List<JavaFileObject> units = new ArrayList<>();
        JavaFileObject mainUnit = null;
        for (Path p : files) {
            JavaFileObject unit = new AnyName(fm.getJavaFileObjects(p).iterator().next());
            if (p == main)
                mainUnit = unit;
            units.add(unit);
        }
        Files.createDirectories(Paths.get(out));
        List<String> options = List.of("-d", out, "-cp", ".", "-encoding", "UTF-8");
        JavacTask task = (JavacTask) javac.getTask(null, fm, null, options, null, units);
        MainFinder finder = new MainFinder(mainUnit, task);
        task.addTaskListener(finder);
        if (!task.call())
            return 1;
        Files.writeString(Paths.get(mainClassFile), finder.mainClass() + "\n");
        return 0;
    }

    public static void main(String[] args) throws IOException {
        System.exit(run(args));
    }
}
