(defn solution [a b]
  (+ a b))
