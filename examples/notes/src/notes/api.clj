(ns notes.api
  "The JSON API's handlers. Each takes the db spec and the request, and returns
  a response whose body is Clojure data: onager.middleware/wrap-json-response
  (in notes.routes) writes it as JSON. Bodies arrive parsed as :body-params
  (wrap-json-body) and query strings as :query-params (wrap-params); malformed
  JSON never gets here, wrap-json-body answers it with a 400 of its own."
  (:require [notes.db :as db]
            [notes.validation :as validation]))

(set! *warn-on-reflection* true)

(defn error
  "A JSON error response: {\"error\": message}, and \"fields\" naming each bad
  field and why when there are any."
  ([status message] (error status message nil))
  ([status message fields]
   {:status status
    :body (cond-> {:error message} (seq fields) (assoc :fields fields))}))

(defn- invalid
  "The 400 for a failed check of notes.validation."
  [{message :error fields :errors}]
  (error 400 message fields))

(defn- note-id
  "The :id path parameter as a number, or nil when it cannot name a note: the
  client then gets the same 404 as for an id that names none."
  [request]
  (let [id (get-in request [:path-params :id])]
    (when (re-matches #"[1-9]\d{0,17}" id)
      (parse-long id))))

(defn- no-note [request]
  (error 404 (str "No note with id " (get-in request [:path-params :id]) ".")))

(defn list-notes
  "GET /api/notes[?q=text&limit=50&offset=0]: notes, pinned first, then newest first."
  [db request]
  (let [checked (validation/list-params (:query-params request))]
    (if-let [params (:value checked)]
      {:status 200 :body (vec (db/list-notes db params))}
      (invalid checked))))

(defn get-note
  "GET /api/notes/:id: the note, or 404."
  [db request]
  (if-let [note (some->> (note-id request) (db/get-note db))]
    {:status 200 :body note}
    (no-note request)))

(defn create-note
  "POST /api/notes with a JSON note: 201 with the note as stored and its
  Location, or 400 naming each bad field."
  [db request]
  (let [checked (validation/note (:body-params request))]
    (if-let [note (:value checked)]
      (let [created (db/create-note! db note)]
        {:status 201
         :headers {"Location" (str "/api/notes/" (:id created))}
         :body created})
      (invalid checked))))

(defn update-note
  "PUT /api/notes/:id with a whole JSON note: the note as stored, 400 naming
  each bad field, or 404."
  [db request]
  (if-let [id (note-id request)]
    (let [checked (validation/note (:body-params request))]
      (if-let [note (:value checked)]
        (if-let [updated (db/update-note! db id note)]
          {:status 200 :body updated}
          (no-note request))
        (invalid checked)))
    (no-note request)))

(defn delete-note
  "DELETE /api/notes/:id: 204, or 404."
  [db request]
  (if (some->> (note-id request) (db/delete-note! db))
    {:status 204}
    (no-note request)))
