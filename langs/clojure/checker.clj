;; checker.clj - runs check/solution.clj against check/asserts.json.
;;
;; Prints ONE JSON array of items {"type" "result"|"error", "value",
;; "output", "time" (ms, an integer)} on the real stdout.  *out* is rebound
;; per call, so what the solution prints lands in its item's output.  A
;; solution that fails to load or defines no `solution` gives one error
;; item, exit 0.
(ns checker
  (:require [clojure.data.json :as json]))

(def real-out *out*)

(defn emit [items]
  (binding [*out* real-out]
    (println)
    (println (json/write-str items :escape-unicode false :escape-slash false))
    (flush)))

(defn error-item [^Throwable e]
  {"type" "error"
   "value" (str (or (.getMessage e) (str e))
                (when-let [c (.getCause e)] (str " " (.getMessage c))))
   "output" ""
   "time" 0})

(defn load-solution []
  (let [w (java.io.StringWriter.)]
    (binding [*out* w *ns* (create-ns 'user)]
      (clojure.core/refer-clojure)
      (load-file "check/solution.clj"))
    (or (ns-resolve (the-ns 'user) 'solution)
        (some #(ns-resolve % 'solution) (all-ns))
        (throw (Exception. "check/solution.clj does not define solution")))))

(defn doall*
  "Realises nested lazy sequences while *out* is still captured."
  [v]
  (cond (map? v) (into {} (map (fn [[k x]] [k (doall* x)])) v)
        (coll? v) (mapv doall* v)
        :else v))

(defn run-one [f args]
  (let [w (java.io.StringWriter.)
        start (System/nanoTime)
        [kind value] (try
                       (binding [*out* w]
                         [:result (doall* (apply f args))])
                       (catch Throwable e
                         [:error (or (.getMessage e) (str e))]))
        ms (quot (- (System/nanoTime) start) 1000000)]
    {"type" (name kind) "value" value "output" (str w) "time" ms}))

(defn -main []
  (let [calls (get (json/read-str (slurp "check/asserts.json")) "arguments")
        f (try (load-solution) (catch Throwable e e))]
    (if (instance? Throwable f)
      (emit [(error-item f)])
      (emit (mapv (fn [args]
                    (let [item (run-one f args)]
                      (try (json/write-str item) item
                           (catch Throwable e
                             (assoc item "type" "error"
                                    "value" (str "result is not JSON: " (.getMessage e)))))))
                  calls)))))

(-main)
