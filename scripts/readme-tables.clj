;; Which options table README.md shows between which markers: read by
;; scripts/update-docs.clj (`make docs`) and by the test that checks README.
(require '[onager.client.options :as client-options]
         '[onager.json.options :as json-options]
         '[onager.middleware.options :as middleware-options]
         '[onager.router.options :as router-options]
         '[onager.server.options :as server-options]
         '[onager.websocket.connect-options :as connect-options])

[["options" server-options/table]
 ["router-options" router-options/table]
 ["params-options" middleware-options/params-table]
 ["json-body-options" middleware-options/json-body-table]
 ["json-response-options" middleware-options/json-response-table]
 ["json-read-options" json-options/read-table]
 ["json-write-options" json-options/write-table]
 ["client-options" client-options/table]
 ["websocket-connect-options" connect-options/table]]
